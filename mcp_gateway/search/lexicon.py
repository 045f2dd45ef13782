"""A compact bilingual lexicon of what tool catalogs talk about: actions, objects and their abbreviations.

Each line is one concept: English words or phrases and Chinese words that mean the same thing in a tool
description or a request for one. Both documents and queries are mapped through it (symmetrically), into
a separate concept field, so `remove a repo` meets `delete_repository`, and `把这个仓库的 issue 列出来` meets
`list_issues` ("List issues in a GitHub repository"). Exact words still score in their own fields, so a
synonym never outranks the word itself.

The lexicon is written from the vocabulary of tool catalogs (verbs of CRUD and I/O, common objects of
developer, office, web and everyday services), never from benchmark queries.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TypeVar

from mcp_gateway.search.text import CJK_FILLER, is_cjk, stem

_K = TypeVar("_K")

CONCEPT_PREFIX = "~"
MAX_CJK_WORD = 5

# concept: English words and phrases | Chinese words
_GROUPS = """
delete: delete remove erase destroy drop purge unlink rm del trash | 删除 删掉 移除 去掉 清除 销毁
create: create make new add insert generate build spawn mkdir touch | 创建 新建 添加 新增 生成 建立 增加
update: update modify edit change alter patch set rename replace | 更新 修改 编辑 更改 变更 改名 重命名 替换
get: get fetch retrieve obtain load lookup look+up | 获取 得到 取得 拿到 查看 调取
read: read open view cat show display | 读取 读 打开 查看 显示 阅读
write: write save store persist put dump | 写入 写 保存 存储 存入
list: list enumerate ls browse index all | 列出 列表 罗列 列举 所有 全部
search: search find query lookup locate seek grep discover | 搜索 查找 查询 检索 寻找 搜 找
run: run execute exec invoke launch call trigger start | 执行 运行 调用 启动 触发
stop: stop kill terminate halt cancel abort end | 停止 终止 取消 结束 关掉
close: close shut resolve archive | 关闭 关掉 归档
open: open reopen | 打开 开启 重新打开
send: send post submit deliver dispatch notify message | 发送 提交 推送 通知
download: download | 下载
upload: upload attach | 上传 附加
copy: copy duplicate clone cp | 复制 拷贝 克隆
move: move mv relocate transfer | 移动 转移
compare: compare diff difference | 比较 对比 差异 区别
convert: convert transform translate format export | 转换 转化 导出 格式化
translate: translate translation | 翻译
summarize: summarize summary summarise digest tldr | 总结 摘要 概括 汇总
analyze: analyze analyse analysis inspect examine evaluate | 分析 检查 评估
calculate: calculate compute sum add math arithmetic | 计算 求和 相加 加法
validate: validate verify check lint test | 验证 校验 检验 检查 测试
schedule: schedule plan book reserve appointment | 安排 计划 预约 预订 日程
navigate: navigate goto visit open+url | 访问 打开网页 跳转 导航
click: click press tap | 点击 单击
type_text: type fill enter input | 输入 填写 填入
screenshot: screenshot screen+capture snapshot screencap | 截图 截屏 屏幕截图
file: file files document doc | 文件 文档
directory: directory folder dir path | 目录 文件夹 路径
repository: repository repo repos codebase project | 仓库 代码仓库 代码库 项目 存储库
issue: issue issues ticket bug | 问题单 工单 缺陷
pull_request: pull+request pr merge+request mr prs | 拉取请求 合并请求
branch: branch | 分支
commit: commit changeset revision | 提交记录 提交
comment: comment reply review note | 评论 回复 批注 评审
user: user account member profile person people | 用户 账户 账号 成员 个人资料
team: team group organization org | 团队 组织 群组
message: message msg chat conversation dm | 消息 信息 聊天 会话 私信
email: email mail gmail inbox | 邮件 电子邮件 邮箱 收件箱
channel: channel room | 频道 群聊
calendar: calendar event meeting agenda | 日历 日程 会议 活动
time: time clock timezone now | 时间 时区 现在 当前时间
date: date day today tomorrow yesterday | 日期 今天 明天 昨天
weather: weather forecast temperature rain climate | 天气 气温 预报 温度 下雨 气候
location: location place address coordinates geocode latitude longitude position | 位置 地点 地址 坐标 经纬度
map: map maps route direction directions navigation distance | 地图 路线 导航 距离 路径
travel: travel trip flight hotel train ticket | 旅行 出行 航班 酒店 火车 车票 列车
image: image picture photo img pic graphic | 图片 图像 照片
video: video movie clip youtube | 视频 影片
audio: audio sound music song voice speech | 音频 声音 音乐 歌曲 语音
web: web webpage web+page website site url link page html internet online | 网页 网站 网址 链接 页面 网络 在线
browser: browser chrome playwright puppeteer headless | 浏览器
news: news headline article press | 新闻 头条 资讯 文章
price: price cost quote rate | 价格 报价 股价 汇率
stock: stock share ticker equity market | 股票 股市 行情
crypto: crypto cryptocurrency bitcoin btc ethereum eth token coin | 加密货币 比特币 以太坊
finance: finance financial money payment invoice | 金融 财务 钱 支付 付款 发票
database: database db sql table query schema postgres mysql sqlite | 数据库 数据表
record: record row entry item | 记录 条目 行
kubernetes: kubernetes k8s kube kubectl cluster pod deployment namespace | 集群 容器编排
container: container docker image | 容器
log: log logs logging trace | 日志
config: config configuration setting settings option preference | 配置 设置 选项
permission: permission access role grant auth authorization | 权限 访问 角色 授权
secret: secret token key credential password | 密钥 令牌 密码 凭证
note: note notes memo knowledge memory | 笔记 备忘 知识 记忆
task: task todo job work item | 任务 待办 工作
paper: paper article research publication arxiv scholar | 论文 学术 文献 研究
book: book novel reading | 书 书籍 小说 阅读
chart: chart graph plot diagram visualization visualize | 图表 图形 可视化 绘图 画图
text: text string content word | 文本 文字 内容 字符串
code: code script source program function snippet | 代码 脚本 源码 程序 函数
command: command shell terminal cli bash | 命令 终端 命令行
status: status state health info information detail details | 状态 信息 详情 详细信息
count: count number total | 数量 多少 个数 总数
recent: recent latest newest last new | 最近 最新 最新的
trending: trending popular hot top rank ranking | 热门 热搜 排行 排行榜 排名
"""

_WORD = re.compile(r"[a-z0-9+]+")


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, tuple[str, ...]], dict[tuple[str, str], tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """(single English stem → concepts, English stem pair → concepts, Chinese word → concepts)."""
    singles: dict[str, set[str]] = {}
    pairs: dict[tuple[str, str], set[str]] = {}
    chinese: dict[str, set[str]] = {}
    for line in _GROUPS.strip().splitlines():
        concept, _, members = line.partition(":")
        english, _, zh = members.partition("|")
        tag = CONCEPT_PREFIX + concept.strip()
        phrases = _english_phrases(english)
        for phrase in phrases:
            stems = tuple(stem(word) for word in phrase)
            if len(stems) == 1:
                singles.setdefault(stems[0], set()).add(tag)
            elif len(stems) == 2:
                pairs.setdefault((stems[0], stems[1]), set()).add(tag)
        for word in zh.split():
            chinese.setdefault(word, set()).add(tag)
    return _frozen(singles), _frozen(pairs), _frozen(chinese)


def _frozen(table: dict[_K, set[str]]) -> dict[_K, tuple[str, ...]]:
    return {key: tuple(sorted(value)) for key, value in table.items()}


def _english_phrases(text: str) -> list[list[str]]:
    """Words, and two-word phrases written `pull+request` (their words alone do not carry the concept)."""
    return [entry.split("+") for entry in _WORD.findall(text.lower())]


def concepts_of(words: tuple[str, ...], cjk_runs: tuple[str, ...]) -> list[str]:
    """Concept tokens for analyzed words (stems, in order) and raw CJK runs."""
    singles, pairs, chinese = _tables()
    found: list[str] = []
    for index, word in enumerate(words):
        found.extend(singles.get(word, ()))
        if index + 1 < len(words):
            found.extend(pairs.get((word, words[index + 1]), ()))
    for run in cjk_runs:
        found.extend(_chinese_concepts(run, chinese))
    return found


def _chinese_concepts(run: str, chinese: dict[str, tuple[str, ...]]) -> list[str]:
    """Every lexicon word inside the run, longest first at each position (no segmenter needed)."""
    found: list[str] = []
    position = 0
    while position < len(run):
        for length in range(min(MAX_CJK_WORD, len(run) - position), 0, -1):
            piece = run[position : position + length]
            if length == 1 and piece in CJK_FILLER:
                continue
            concepts = chinese.get(piece)
            if concepts:
                found.extend(concepts)
                position += length - 1
                break
        position += 1
    return found


def has_cjk_entry(text: str) -> bool:
    return is_cjk(text) and bool(_chinese_concepts(text, _tables()[2]))
