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
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from mcp_gateway.search.glossary import glossary_translations
from mcp_gateway.search.text import CJK_FILLER, lengths_by_first_character, longest_matches, stem

_K = TypeVar("_K")

CONCEPT_PREFIX = "~"
"""Marks a concept token (`~delete`), so a concept never meets a word spelled like it."""
TOPICAL = frozenset(
    """
    location map browser crypto finance database kubernetes status date restaurant audio travel web news stock
    """.split()
)
"""Groups that gather related things rather than synonyms (bitcoin and ethereum, a route and a distance):
a match through them says the tool is on topic, not that it does what was asked."""
ACTION_CONCEPTS = frozenset(
    """
    delete create update get read write list search run stop close open send download upload copy move compare
    convert translate summarize analyze calculate validate schedule navigate click type_text screenshot login
    """.split()
)
"""The groups of what a tool does (its verbs); the others are of what it does it to or about (its objects)."""
CROSSING_BIGRAM_WEIGHT = 0.3
"""A bigram that straddles two lexicon words (`取文` in 读取|文件) is an accident of the characters' order, not a
word. Chosen by hand in b7d2fc1. Measured: 0.1 → unchanged; 0.6 → .449/.784/.571, .573."""
MAX_CJK_WORD = 5
"""The longest piece of a CJK run looked up in the lexicon, in characters: at least its longest word (4 today,
电子邮件). A bound, not a tuning."""

# concept: English words and phrases | Chinese words
_GROUPS = """
delete: delete remove erase destroy drop purge unlink rm del trash | 删除 删掉 移除 去掉 清除 销毁 删
create: create make new add insert generate build spawn mkdir touch | 创建 新建 添加 新增 生成=generate 建立
    增加=add 建 加=add
update: update modify edit change alter patch set rename replace | 更新 修改=modify 编辑=edit 更改=change
    变更=change 改名=rename 重命名=rename 替换=replace 改
get: get fetch retrieve obtain load lookup look+up | 获取 得到 取得 拿到 调取 拿
read: read open view cat show display | 读取 读 查看=view 显示=show 阅读 看
write: write save store persist put dump | 写入 写 保存=save 存储=store 存入=save 存
list: list enumerate ls browse index all | 列出 列表 罗列 列举 所有=all 全部=all 列
search: search find query lookup look+up locate seek grep discover | 搜索 查找=find 查询=query 检索 寻找=find 搜
    找=find 查 查一下
run: run execute exec invoke launch call trigger start | 执行=execute 运行 调用=call 启动=start 触发=trigger
stop: stop kill terminate halt cancel abort end | 停止 终止=terminate 取消=cancel 结束=end 关掉
close: close shut resolve archive | 关闭 归档=archive 关
open: open reopen | 打开 开启 重新打开=reopen
send: send post submit deliver dispatch notify message | 发送 提交=submit 推送=push 通知=notify 发
download: download | 下载
upload: upload attach | 上传 附加=attach
copy: copy duplicate clone cp | 复制 拷贝 克隆=clone
move: move mv relocate transfer | 移动 转移=transfer
compare: compare diff difference | 比较 对比 差异=difference 区别=difference
convert: convert transform translate format export | 转换 转化 导出=export 格式化=format 转成 转为
translate: translate translation | 翻译
summarize: summarize summary summarise digest tldr | 总结 摘要=summary 概括 汇总=summary
analyze: analyze analyse analysis inspect examine evaluate | 分析 检查=inspect 评估=evaluate
calculate: calculate compute sum add math arithmetic | 计算 求和=sum 相加=add 加法=add 算
validate: validate verify check lint test | 验证 校验=validate 检验=verify 测试=test
schedule: schedule plan book reserve appointment | 安排 计划=plan 预约=book 预订=book 订=book
navigate: navigate goto visit open+url | 访问=visit 打开网页=navigate 跳转 导航
click: click press tap | 点击 单击 按下=press 点
type_text: type fill enter input | 输入=type 填写=fill 填入=fill 填
screenshot: screenshot screen+capture snapshot screencap | 截图 截屏 屏幕截图
login: login log+in sign+in signin authenticate | 登录 登陆
button: button | 按钮
element: element selector | 元素 选择器=selector
file: file files document doc | 文件
document: document doc docx word | 文档 文稿
spreadsheet: spreadsheet sheet excel xlsx csv | 表格 电子表格 工作表=sheet
presentation: presentation slide slides ppt pptx powerpoint deck | 幻灯片=slide 演示文稿 演示
directory: directory folder dir path | 目录 文件夹=folder 路径=path
repository: repository repo repos codebase project | 仓库 代码仓库 代码库 项目=project 存储库
issue: issue issues ticket bug | 问题单 工单=ticket 缺陷=bug
pull_request: pull+request pr merge+request mr prs | 拉取请求 合并请求 拉取
branch: branch | 分支
commit: commit changeset revision | 提交记录 提交
comment: comment reply review note | 评论 回复=reply 批注 评审=review
user: user account member profile person people | 用户 账户=account 账号=account 成员=member 个人资料=profile
team: team group organization org | 团队 组织=organization 群组=group
message: message msg chat conversation dm | 消息 信息 聊天=chat 会话=conversation 私信
email: email mail gmail inbox | 邮件 电子邮件 邮箱 收件箱=inbox
channel: channel room | 频道 群聊
calendar: calendar event meeting agenda | 日历 日程=event 会议=meeting 活动=event
reminder: reminder remind alarm alert | 提醒 闹钟=alarm
time: time clock timezone now current | 时间 时区=timezone 现在=now 当前=current 当前时间 几点
date: date day today tomorrow yesterday week | 日期 今天=today 明天=tomorrow 昨天=yesterday 周=week 星期=week
weather: weather forecast temperature rain climate | 天气 气温=temperature 预报=forecast 温度=temperature 下雨=rain
    气候=climate
location: location place address coordinates geocode latitude longitude position | 位置 地点=place 地址=address
    坐标=coordinates 经纬度=coordinates
nearby: nearby near around | 附近 周边 周围
map: map maps route direction directions navigation distance | 地图 路线=route 距离=distance 路径=route
travel: travel trip journey itinerary | 旅行 出行 旅游=travel 行程=itinerary
flight: flight airline plane airport | 航班 机票=flight 飞机=plane 机场=airport
hotel: hotel lodging accommodation homestay airbnb | 酒店 住宿=accommodation 民宿=homestay 宾馆=hotel
train: train rail railway station | 火车 高铁=train 列车=train 火车票=train 车站=station
ticket: ticket booking | 车票 票
restaurant: restaurant food dining meal recipe | 餐厅 饭店 美食=food 菜谱=recipe 食谱=recipe 做饭=recipe 吃=food
image: image picture photo img pic graphic | 图片 图像 照片=photo 图
video: video movie clip youtube | 视频 影片=movie 电影=movie
audio: audio sound music song voice speech | 音频 声音=sound 音乐=music 歌曲=song 语音=voice
web: web webpage web+page website site url link page html internet online | 网页 网站=website 网址=url 链接=link
    页面=page 网络 在线=online 上网
browser: browser chrome playwright puppeteer headless | 浏览器
news: news headline article press | 新闻 头条=headline 资讯
price: price cost quote rate | 价格 报价=quote 多少钱 股价=price 汇率=rate
stock: stock share ticker equity market | 股票 股市=market 行情=market
crypto: crypto cryptocurrency bitcoin btc ethereum eth token coin | 加密货币 比特币=bitcoin 以太坊=ethereum 币=coin
finance: finance financial money payment invoice | 金融 财务 钱=money 支付=payment 付款=payment 发票=invoice
database: database db sql table query schema postgres mysql sqlite | 数据库 数据表=table
record: record row entry item | 记录 条目=entry 行=row
kubernetes: kubernetes k8s kube kubectl cluster pod deployment namespace | 集群=cluster 容器编排
container: container docker image | 容器
log: log logs logging trace | 日志
config: config configuration setting settings option preference | 配置 设置=settings 选项=option
permission: permission access role grant auth authorization | 权限 角色=role 授权=authorization
secret: secret token key credential password | 密钥=key 令牌=token 密码=password 凭证=credential
note: note notes memo knowledge memory | 笔记 备忘=memo 知识=knowledge 记忆=memory 记下 记
task: task todo job work item | 任务 待办=todo 工作=job
paper: paper article research publication arxiv scholar | 论文 学术=scholar 文献=publication 研究=research
    文章=article
book: book novel reading | 书 书籍 小说=novel
chart: chart graph plot diagram visualization visualize | 图表 图形=graph 可视化=visualization 绘图=plot 画图=plot
text: text string content word | 文本 文字 内容=content 字符串=string 段落=paragraph
code: code script source program function snippet | 代码 脚本=script 源码=source 程序=program 函数=function
command: command shell terminal cli bash | 命令 终端=terminal 命令行=cli
status: status state health info information detail details | 状态 信息=information 详情=details 详细信息=details
count: count number total | 数量 多少 个数 总数=total 几个
recent: recent latest newest last new | 最近 最新=latest 最新的=latest
trending: trending popular hot top rank ranking | 热门=popular 热搜=trending 排行=ranking 排行榜=ranking
    排名=ranking
"""

MAX_CACHED_CJK_RUNS = 4096
"""CJK runs whose lexicon words and translations are kept (`chinese_words`, `_run_translations`): catalog-xl.json's
tools have 1,634 distinct ones, a whole catalog's build reads each twice or more. A memory bound; results do not
depend on it."""

_WORD = re.compile(r"[a-z0-9+]+")

_ABBREVIATIONS = """
pr prs=pull+request mr=merge+request repo repos=repository k8s kube=kubernetes db=database msg=message
dm=direct+message auth=authentication env=environment config cfg=configuration dir=directory img=image
pic=picture doc=document docs=documentation info=information btc=bitcoin eth=ethereum ci=continuous+integration
tz=timezone dt=datetime geo=location addr=address qr=qrcode pdf=document ppt=presentation
xls xlsx=spreadsheet md=markdown ts=typescript js=javascript py=python tx=transaction
"""
"""Abbreviations common in tool catalogs and requests, and the words they stand for (`a b=c+d`: a and b mean
`c d`). Expanded on both sides, so `list my open PRs` meets `list_pull_requests` word for word."""


@dataclass(frozen=True)
class _Tables:
    singles: dict[str, tuple[str, ...]]
    """English stem → concepts."""
    pairs: dict[tuple[str, str], tuple[str, ...]]
    """Two English stems in a row → concepts."""
    pair_starts: frozenset[str]
    """The first stems of `pairs`."""
    chinese: dict[str, tuple[str, ...]]
    """Chinese word → concepts."""
    segmented: frozenset[str]
    """The Chinese words a run is read for (`_segmented_words`)."""
    segmented_lengths: dict[str, tuple[int, ...]]
    """A character → the lengths of `segmented` words (up to `MAX_CJK_WORD`) that begin with it, longest first."""
    translations: dict[str, tuple[str, ...]]
    """Chinese word → English stems it translates to."""
    abbreviations: dict[str, tuple[str, ...]]
    """English abbreviation (stemmed) → the stems of the words it stands for."""
    actions: frozenset[str]
    """English stems that only name an action (`ACTION_CONCEPTS`): in no group of objects (`message` is in `send`'s
    group and `message`'s, so it is an object)."""


@lru_cache(maxsize=1)
def _tables() -> _Tables:
    singles: dict[str, set[str]] = {}
    pairs: dict[tuple[str, str], set[str]] = {}
    chinese: dict[str, set[str]] = {}
    translations: dict[str, set[str]] = {}
    for line in _group_lines():
        concept, _, members = line.partition(":")
        english, _, zh = members.partition("|")
        concept = concept.strip()
        tag = CONCEPT_PREFIX + concept
        for phrase in _english_phrases(english):
            stems = tuple(stem(word) for word in phrase)
            if len(stems) == 1:
                singles.setdefault(stems[0], set()).add(tag)
            elif len(stems) == 2:
                pairs.setdefault((stems[0], stems[1]), set()).add(tag)
        for entry in zh.split():
            word, _, english_word = entry.partition("=")
            chinese.setdefault(word, set()).add(tag)
            # A word without its own translation means what the concept is named (`pull_request` → pull request).
            words = english_word.split("+") if english_word else concept.split("_")
            translations.setdefault(word, set()).update(stem(w) for w in words)
    abbreviations: dict[str, set[str]] = {}
    pending: list[str] = []
    for item in _ABBREVIATIONS.split():
        short, _, long = item.partition("=")
        pending.append(short)
        if long:
            for abbreviation in pending:
                abbreviations.setdefault(stem(abbreviation), set()).update(stem(word) for word in long.split("+"))
            pending.clear()
    segmented = _segmented_words(chinese)
    actions = frozenset(
        word
        for word, concepts in singles.items()
        if all(concept.removeprefix(CONCEPT_PREFIX) in ACTION_CONCEPTS for concept in concepts)
    )
    return _Tables(
        _frozen(singles),
        _frozen(pairs),
        frozenset(first for first, _ in pairs),
        _frozen(chinese),
        segmented,
        lengths_by_first_character(segmented, MAX_CJK_WORD),
        _frozen(translations),
        _frozen(abbreviations),
        actions,
    )


def _segmented_words(chinese: Iterable[str]) -> frozenset[str]:
    """The Chinese words a run is read for: a filler character (的, 了) is grammar, never a word of its own."""
    return frozenset(word for word in chinese if not (len(word) == 1 and word in CJK_FILLER))


def is_action(word: str) -> bool:
    """Whether an English stem only names an action (`delete`, `add`, `fetch`), not a thing acted on."""
    return word in _tables().actions


def lexicon_chinese_words() -> frozenset[str]:
    """Every Chinese word of the lexicon (what a request's Chinese is read through)."""
    return frozenset(_tables().chinese)


def _group_lines() -> list[str]:
    """The table's lines, with indented continuation lines joined to the line they continue."""
    lines: list[str] = []
    for raw in _GROUPS.strip().splitlines():
        if raw.startswith(" ") and lines:
            lines[-1] += " " + raw.strip()
        else:
            lines.append(raw)
    return lines


def _frozen(table: dict[_K, set[str]]) -> dict[_K, tuple[str, ...]]:
    return {key: tuple(sorted(value)) for key, value in table.items()}


def _english_phrases(text: str) -> list[list[str]]:
    """Words, and two-word phrases written `pull+request` (their words alone do not carry the concept)."""
    return [entry.split("+") for entry in _WORD.findall(text.lower())]


def concepts_of(words: tuple[str, ...], cjk_runs: tuple[str, ...]) -> list[str]:
    """Concept tokens for analyzed words (stems, in order) and raw CJK runs."""
    tables = _tables()
    found: list[str] = []
    for index, word in enumerate(words):
        concepts = tables.singles.get(word)
        if concepts:
            found.extend(concepts)
        # Few words start a two-word phrase (`pull`, `sign`, `look`…): the others skip building a pair to look up.
        if word in tables.pair_starts and index + 1 < len(words):
            found.extend(tables.pairs.get((word, words[index + 1]), ()))
    for run in cjk_runs:
        for word in chinese_words(run):
            found.extend(tables.chinese[word])
    return found


def translations_of(cjk_runs: tuple[str, ...]) -> list[str]:
    """English stems for the lexicon and glossary words in CJK runs: `读取文件` → read, file; `标签页` → tab."""
    return [english for run in cjk_runs for english in _run_translations(run)]


@lru_cache(maxsize=MAX_CACHED_CJK_RUNS)
def _run_translations(run: str) -> tuple[str, ...]:
    translations = _tables().translations
    stems = [english for word in chinese_words(run) for english in translations[word]]
    known = set(stems)
    stems.extend(english for english in dict.fromkeys(glossary_translations(run)) if english not in known)
    return tuple(stems)


MEASURE_PHRASE = re.compile("一[个条张封份篇首部件本台次下位些点]|个(?!人)")
"""A number and measure word inside a verb-object phrase (`截个图`, `发一封邮件`): read the phrase without it too."""


def expansions_of(words: tuple[str, ...]) -> list[str]:
    """The words abbreviations stand for: `pr` → pull, request."""
    abbreviations = _tables().abbreviations
    if abbreviations.keys().isdisjoint(words):
        return []  # most texts have none: found without a lookup per word in Python
    return [long for word in words for long in abbreviations.get(word, ())]


@lru_cache(maxsize=MAX_CACHED_CJK_RUNS)
def chinese_words(run: str) -> tuple[str, ...]:
    """The lexicon words inside a CJK run, longest first at each position (no segmenter needed).

    The run is also read without number-and-measure words; where that reading finds a longer word (截图 in
    截个图), the shorter pieces it contains are dropped. Cached: a tool's concepts and its translations both read
    its runs, and catalogs repeat them (catalog.json: 956 distinct runs among 1,648 in names, titles and
    descriptions), at about 2 us a character.
    """
    compact = MEASURE_PHRASE.sub("", run)
    if compact == run:
        return tuple(_segment(run))
    found = _segment(compact)
    found.extend(word for word in _segment(run) if word not in found and not any(word in longer for longer in found))
    return tuple(found)


def _segment(run: str) -> list[str]:
    return [word for _, word in segment_spans(run)]


def segment_spans(run: str) -> list[tuple[int, str]]:
    """(start, word) for each lexicon word in the run, longest match first at each position."""
    tables = _tables()
    return longest_matches(run, tables.segmented, tables.segmented_lengths)


def cjk_units(run: str) -> list[str]:
    """A CJK run as units of meaning: its lexicon words, and the bigrams of the stretches between them
    (names and other words the lexicon does not know), single characters only where nothing longer exists."""
    units = list(chinese_words(run))
    covered = [False] * len(run)
    for start, word in segment_spans(run):
        for position in range(start, start + len(word)):
            covered[position] = True
    stretch = ""
    for position, character in enumerate([*run, ""]):
        if character and not covered[position] and character not in CJK_FILLER:
            stretch += character
            continue
        if len(stretch) == 1:
            units.append(stretch)
        units.extend(stretch[i : i + 2] for i in range(len(stretch) - 1))
        stretch = ""
    return list(dict.fromkeys(units))


def bigram_weights(run: str) -> dict[str, float]:
    """Weights for the run's bigrams: one that spans two lexicon words (`取文` in 读取|文件) is an accident of
    the characters' order, not a word, and weighs `CROSSING_BIGRAM_WEIGHT`; every other bigram weighs 1."""
    owner = [-1] * len(run)
    for index, (start, word) in enumerate(segment_spans(run)):
        for position in range(start, start + len(word)):
            owner[position] = index
    weights: dict[str, float] = {}
    for position in range(len(run) - 1):
        left, right = owner[position], owner[position + 1]
        crossing = left != right and left >= 0 and right >= 0
        bigram = run[position : position + 2]
        weight = CROSSING_BIGRAM_WEIGHT if crossing else 1.0
        weights[bigram] = max(weights.get(bigram, 0.0), weight)
    return weights
