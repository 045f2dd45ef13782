"""Installs real MCP servers from npm and PyPI, starts each over stdio and keeps its `tools/list` (NOTES-registry.md).

Every server in `SERVERS` is a published package at a pinned version. It is installed into a scratch folder
outside the repository (one npm prefix or one virtualenv per server), started with the executable the package
installs, with dummy values in the environment variables it needs only to start, and listed with the official
`mcp` SDK client. The listings go to `catalog-registry.json` (the format of the shared `catalog.json`, plus each
tool's `title`/`annotations` when the server gives them) and where each came from to
`provenance-registry.json`: registry, package, version, the command run, the names of the variables set, the
package's license, the day listed and the SHA-256 of the listing. `NOT_LISTED` keeps the packages that were
tried and did not list, with why, so a later run knows them.

Run: `python -m benchmarks.unseen.list_registry_servers [--only KEY ...] [--scratch DIR] [--no-install]`.
Servers not named with `--only` keep their earlier listing in the output files.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

import anyio
from mcp import StdioServerParameters

from benchmarks.gateway_session import stdio_session

FOLDER = Path(__file__).resolve().parent
CATALOG = FOLDER / "catalog-registry.json"
PROVENANCE = FOLDER / "provenance-registry.json"
DEFAULT_SCRATCH = Path("/work/scratch-servers")
LIST_TIMEOUT_SECONDS = 90.0
INSTALL_TIMEOUT_SECONDS = 900
# Servers read this environment at start; browsers and models they would download cannot be fetched here.
NO_DOWNLOADS = {
    "PUPPETEER_SKIP_DOWNLOAD": "1",
    "PUPPETEER_SKIP_CHROMIUM_DOWNLOAD": "1",
    "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
}
KEPT_TOOL_FIELDS = ("name", "title", "description", "inputSchema", "annotations")

Registry = Literal["npm", "pypi"]


@dataclass(frozen=True)
class ServerSpec:
    """One published server: where it comes from and how it is started to be listed."""

    key: str
    registry: Registry
    package: str
    version: str
    command: str
    """The executable the package installs (an npm `bin` or a Python console script)."""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict[str, str])
    """Dummy values for variables the server needs only to start; none is a real secret."""
    aliases: tuple[str, ...] = ()
    ignore_scripts: bool = False
    """npm: install without install scripts: one runs `npx only-allow pnpm`, another builds a keyring add-on against
    libsecret; neither can run here, and the servers list their tools without them."""
    also: tuple[str, ...] = ()
    """PyPI: requirements installed with the package, for a server whose own requirements let pip pick a version
    that breaks it (`mcp<2` for servers written for `mcp.server.fastmcp`, which mcp 2 renamed)."""


def npm(key: str, package: str, version: str, command: str, *args: str, **options: Any) -> ServerSpec:
    return ServerSpec(key, "npm", package, version, command, args, **options)


def pypi(key: str, package: str, version: str, command: str, *args: str, **options: Any) -> ServerSpec:
    return ServerSpec(key, "pypi", package, version, command, args, **options)


DUMMY = "dummy-not-a-secret"
AWS_ENV = {"AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "AKIADUMMY", "AWS_SECRET_ACCESS_KEY": DUMMY}
OLD_MCP = ("mcp<2",)

SERVERS: tuple[ServerSpec, ...] = (
    # Developer tools, code hosting, CI, testing.
    npm("chrome-devtools", "chrome-devtools-mcp", "1.11.0", "chrome-devtools-mcp", aliases=("Chrome DevTools MCP",)),
    npm(
        "gitlab",
        "@zereight/mcp-gitlab",
        "2.1.64",
        "mcp-gitlab",
        aliases=("GitLab MCP server",),
        env={"GITLAB_PERSONAL_ACCESS_TOKEN": DUMMY, "GITLAB_API_URL": "https://gitlab.example.com/api/v4"},
    ),
    npm(
        "git-mcp-server",
        "@cyanheads/git-mcp-server",
        "2.15.3",
        "git-mcp-server",
        aliases=("Git MCP Server",),
        env={"MCP_TRANSPORT_TYPE": "stdio"},
    ),
    npm(
        "circleci",
        "@circleci/mcp-server-circleci",
        "0.20.0",
        "mcp-server-circleci",
        aliases=("CircleCI MCP Server",),
        env={"CIRCLECI_TOKEN": DUMMY},
    ),
    npm("eslint", "@eslint/mcp", "0.3.13", "mcp", aliases=("ESLint MCP",)),
    npm(
        "postman",
        "@postman/postman-mcp-server",
        "2.13.0",
        "postman-mcp-server",
        aliases=("Postman MCP Server",),
        env={"POSTMAN_API_KEY": DUMMY},
        ignore_scripts=True,
    ),
    npm(
        "browserstack",
        "@browserstack/mcp-server",
        "1.4.2",
        "browserstack-mcp-server",
        aliases=("BrowserStack MCP Server",),
        env={"BROWSERSTACK_USERNAME": DUMMY, "BROWSERSTACK_ACCESS_KEY": DUMMY},
    ),
    npm("next-devtools", "next-devtools-mcp", "0.4.0", "next-devtools-mcp", aliases=("Next.js DevTools MCP",)),
    npm("shopify-dev", "@shopify/dev-mcp", "1.16.0", "shopify-dev-mcp", aliases=("Shopify Dev MCP",)),
    npm("mastra-docs", "@mastra/mcp-docs-server", "1.2.27", "mcp-docs-server", aliases=("Mastra Docs Server",)),
    npm(
        "launchdarkly",
        "@launchdarkly/mcp-server",
        "0.6.2",
        "mcp",
        "start",
        "--api-key",
        DUMMY,
        aliases=("LaunchDarkly MCP Server",),
    ),
    npm(
        "alibabacloud-devops",
        "alibabacloud-devops-mcp-server",
        "0.3.64",
        "alibabacloud-devops-mcp-server",
        aliases=("阿里云云效 MCP Server", "Alibaba Cloud DevOps (Yunxiao) MCP Server"),
        env={"YUNXIAO_ACCESS_TOKEN": DUMMY},
    ),
    # Observability and operations.
    npm("sentry", "@sentry/mcp-server", "0.39.0", "sentry-mcp", f"--access-token={DUMMY}", aliases=("Sentry MCP",)),
    npm(
        "datadog",
        "@winor30/mcp-server-datadog",
        "1.8.0",
        "mcp-server-datadog",
        aliases=("Datadog MCP Server",),
        env={"DATADOG_API_KEY": DUMMY, "DATADOG_APP_KEY": DUMMY},
    ),
    pypi(
        "grafana",
        "mcp-grafana",
        "2.1.1",
        "mcp-grafana",
        aliases=("Grafana MCP server",),
        env={"GRAFANA_URL": "http://localhost:3000", "GRAFANA_API_KEY": DUMMY},
    ),
    npm(
        "argocd",
        "argocd-mcp",
        "0.9.0",
        "argocd-mcp",
        "stdio",
        aliases=("Argo CD MCP Server",),
        env={"ARGOCD_BASE_URL": "https://argocd.example.com", "ARGOCD_API_TOKEN": DUMMY},
    ),
    npm(
        "mcp-server-kubernetes",
        "mcp-server-kubernetes",
        "4.1.7",
        "mcp-server-kubernetes",
        aliases=("Kubernetes MCP Server (Flux159)",),
    ),
    # Cloud and hosting.
    pypi(
        "aws-documentation",
        "awslabs-aws-documentation-mcp-server",
        "1.2.3",
        "awslabs.aws-documentation-mcp-server",
        aliases=("AWS Documentation MCP Server",),
        env={"FASTMCP_LOG_LEVEL": "ERROR"},
    ),
    pypi(
        "aws-pricing",
        "awslabs-aws-pricing-mcp-server",
        "1.1.1",
        "awslabs.aws-pricing-mcp-server",
        aliases=("AWS Pricing MCP Server",),
        env={**AWS_ENV, "FASTMCP_LOG_LEVEL": "ERROR"},
    ),
    pypi(
        "aws-location",
        "awslabs-aws-location-mcp-server",
        "2.1.1",
        "awslabs.aws-location-mcp-server",
        aliases=("AWS Location Service MCP Server",),
        env={**AWS_ENV, "FASTMCP_LOG_LEVEL": "ERROR"},
    ),
    pypi(
        "aws-cloudwatch",
        "awslabs-cloudwatch-mcp-server",
        "0.3.1",
        "awslabs.cloudwatch-mcp-server",
        aliases=("AWS CloudWatch MCP Server",),
        env={**AWS_ENV, "FASTMCP_LOG_LEVEL": "ERROR"},
    ),
    npm(
        "netlify",
        "@netlify/mcp",
        "1.15.1",
        "netlify-mcp",
        aliases=("Netlify MCP Server",),
        env={"NETLIFY_PERSONAL_ACCESS_TOKEN": DUMMY},
    ),
    npm(
        "hostinger-domains",
        "hostinger-api-mcp",
        "1.63.2",
        "hostinger-domains-mcp",
        aliases=("Hostinger API MCP (domains)",),
        env={"API_TOKEN": DUMMY},
    ),
    npm(
        "cloudbase",
        "@cloudbase/cloudbase-mcp",
        "2.34.6",
        "cloudbase-mcp",
        aliases=("CloudBase MCP", "腾讯云开发"),
        env={"TENCENTCLOUD_SECRETID": DUMMY, "TENCENTCLOUD_SECRETKEY": DUMMY, "CLOUDBASE_ENV_ID": "dummy-env"},
    ),
    npm(
        "replicate",
        "replicate-mcp",
        "0.9.0",
        "mcp-server",
        aliases=("Replicate MCP Server",),
        env={"REPLICATE_API_TOKEN": DUMMY},
    ),
    # Databases and data.
    pypi(
        "clickhouse",
        "mcp-clickhouse",
        "0.7.0",
        "mcp-clickhouse",
        aliases=("ClickHouse MCP Server",),
        env={"CLICKHOUSE_HOST": "localhost", "CLICKHOUSE_USER": "default", "CLICKHOUSE_PASSWORD": DUMMY},
    ),
    pypi(
        "motherduck",
        "mcp-server-motherduck",
        "1.1.0",
        "mcp-server-motherduck",
        "--db-path",
        ":memory:",
        "--read-write",
        aliases=("MotherDuck / DuckDB MCP Server",),
    ),
    npm(
        "pinecone",
        "@pinecone-database/mcp",
        "0.3.0",
        "pinecone-mcp",
        aliases=("Pinecone Developer MCP",),
        env={"PINECONE_API_KEY": DUMMY},
    ),
    npm(
        "airtable",
        "airtable-mcp-server",
        "1.14.0",
        "airtable-mcp-server",
        aliases=("Airtable MCP Server",),
        env={"AIRTABLE_API_KEY": DUMMY},
    ),
    pypi(
        "google-analytics",
        "analytics-mcp",
        "0.8.0",
        "analytics-mcp",
        aliases=("Google Analytics MCP Server",),
        env={"GOOGLE_CLOUD_PROJECT": "dummy-project"},
    ),
    # Work management, docs and productivity.
    npm(
        "notion",
        "@notionhq/notion-mcp-server",
        "2.5.2",
        "notion-mcp-server",
        aliases=("Notion MCP Server",),
        env={"NOTION_TOKEN": DUMMY},
    ),
    pypi(
        "atlassian",
        "mcp-atlassian",
        "0.23.1",
        "mcp-atlassian",
        aliases=("MCP Atlassian (Jira and Confluence)",),
        env={
            "JIRA_URL": "https://example.atlassian.net",
            "JIRA_USERNAME": "user@example.com",
            "JIRA_API_TOKEN": DUMMY,
            "CONFLUENCE_URL": "https://example.atlassian.net/wiki",
            "CONFLUENCE_USERNAME": "user@example.com",
            "CONFLUENCE_API_TOKEN": DUMMY,
        },
    ),
    npm(
        "asana",
        "@roychri/mcp-server-asana",
        "1.8.0",
        "mcp-server-asana",
        aliases=("Asana MCP Server",),
        env={"ASANA_ACCESS_TOKEN": DUMMY},
    ),
    npm(
        "monday",
        "@mondaydotcomorg/monday-api-mcp",
        "3.3.0",
        "mcp-server-monday-api",
        "-t",
        DUMMY,
        aliases=("monday.com API MCP",),
    ),
    npm(
        "shortcut",
        "@shortcut/mcp",
        "0.25.0",
        "mcp-server-shortcut",
        aliases=("Shortcut MCP Server",),
        env={"SHORTCUT_API_TOKEN": DUMMY},
    ),
    npm(
        "backlog",
        "backlog-mcp-server",
        "0.20.4",
        "backlog-mcp-server",
        aliases=("Backlog MCP Server",),
        env={"BACKLOG_DOMAIN": "example.backlog.com", "BACKLOG_API_KEY": DUMMY},
        ignore_scripts=True,
    ),
    npm("ms-365", "@softeria/ms-365-mcp-server", "0.155.0", "ms-365-mcp-server", aliases=("Microsoft 365 MCP Server",)),
    npm(
        "google-calendar",
        "@cocal/google-calendar-mcp",
        "2.6.3",
        "google-calendar-mcp",
        aliases=("Google Calendar MCP",),
        env={"GOOGLE_OAUTH_CREDENTIALS": "{scratch}/dummy-gcp-oauth.keys.json"},
    ),
    npm(
        "email",
        "@codefuturist/email-mcp",
        "0.2.0",
        "email-mcp",
        "stdio",
        aliases=("Email MCP (IMAP/SMTP)",),
        env={
            "MCP_EMAIL_ADDRESS": "user@example.com",
            "MCP_EMAIL_PASSWORD": DUMMY,
            "MCP_EMAIL_IMAP_HOST": "imap.example.com",
            "MCP_EMAIL_SMTP_HOST": "smtp.example.com",
        },
    ),
    npm(
        "hubspot",
        "@hubspot/mcp-server",
        "0.4.0",
        "mcp-hubspot",
        aliases=("HubSpot MCP Server",),
        env={"PRIVATE_APP_ACCESS_TOKEN": DUMMY},
    ),
    npm(
        "lark",
        "@larksuiteoapi/lark-mcp",
        "0.5.1",
        "lark-mcp",
        "mcp",
        "-a",
        "cli_dummy",
        "-s",
        DUMMY,
        "--language",
        "zh",
        aliases=("飞书", "Feishu/Lark OpenAPI MCP"),
        ignore_scripts=True,
    ),
    npm(
        "line-bot",
        "@line/line-bot-mcp-server",
        "0.5.0",
        "line-bot-mcp-server",
        aliases=("LINE Bot MCP Server",),
        env={"CHANNEL_ACCESS_TOKEN": DUMMY, "DESTINATION_USER_ID": "Udummy"},
    ),
    # Web, search, content and design.
    npm(
        "firecrawl",
        "firecrawl-mcp",
        "3.26.0",
        "firecrawl-mcp",
        aliases=("Firecrawl MCP Server",),
        env={"FIRECRAWL_API_KEY": DUMMY},
    ),
    npm(
        "searxng",
        "mcp-searxng",
        "2.4.0",
        "mcp-searxng",
        aliases=("SearXNG MCP Server",),
        env={"SEARXNG_URL": "http://localhost:8080"},
    ),
    npm(
        "dataforseo",
        "dataforseo-mcp-server",
        "3.1.1",
        "dataforseo-mcp-server",
        aliases=("DataForSEO MCP Server",),
        env={"DATAFORSEO_USERNAME": DUMMY, "DATAFORSEO_PASSWORD": DUMMY},
    ),
    npm("reddit-buddy", "reddit-mcp-buddy", "1.1.14", "reddit-mcp-buddy", aliases=("Reddit MCP Buddy",)),
    pypi("markitdown", "markitdown-mcp", "0.0.1a8", "markitdown-mcp", aliases=("MarkItDown MCP",)),
    npm(
        "figma-developer",
        "figma-developer-mcp",
        "0.13.2",
        "figma-developer-mcp",
        "--stdio",
        f"--figma-api-key={DUMMY}",
        aliases=("Framelink Figma MCP Server",),
    ),
    npm("drawio", "@drawio/mcp", "1.6.1", "drawio-mcp", aliases=("draw.io MCP Server",)),
    # Maps and travel.
    npm(
        "mapbox",
        "@mapbox/mcp-server",
        "0.14.0",
        "mcp-server",
        aliases=("Mapbox MCP Server",),
        env={"MAPBOX_ACCESS_TOKEN": "pk.dummy"},
    ),
    npm(
        "flightradar",
        "flightradar-mcp-server",
        "0.1.2",
        "flightradar-mcp-server",
        aliases=("Flightradar MCP Server",),
        env={"FLIGHTRADAR24_API_KEY": DUMMY, "AVIATIONSTACK_API_KEY": DUMMY},
    ),
    npm(
        "travel-planner",
        "@gongrzhe/server-travelplanner-mcp",
        "0.1.2",
        "server-travelplanner-mcp",
        aliases=("Travel Planner MCP Server",),
        env={"GOOGLE_MAPS_API_KEY": DUMMY},
    ),
    # Chinese services and language.
    pypi(
        "douban", "astron-douban-mcp", "0.1.4", "astron-douban-mcp", aliases=("豆瓣", "Astron-Douban-MCP"), also=OLD_MCP
    ),
    pypi("zhihu", "astron-zhihu-mcp", "0.1.5", "astron-zhihu-mcp", aliases=("知乎", "Astron-Zhihu-MCP"), also=OLD_MCP),
    pypi(
        "juejin", "astron-juejin-mcp", "0.1.6", "astron-juejin-mcp", aliases=("掘金", "Astron-Juejin-MCP"), also=OLD_MCP
    ),
    pypi("chinese-nlp", "chinese-nlp-mcp", "0.3.1", "chinese-nlp-mcp", aliases=("中文 NLP MCP",)),
    pypi("china-law", "china-law-mcp", "0.1.1", "china-law-mcp", aliases=("中国法律条文 MCP",)),
    # Finance.
    pypi("a-stock", "a-stock-mcp", "0.1.1", "a-stock-mcp", aliases=("A股数据 MCP",)),
    pypi("akfund", "akfund-mcp", "1.0.4", "akfund-mcp", aliases=("AKFund 基金数据 MCP",), also=OLD_MCP),
    # Games, science and mathematics.
    pypi("chess", "chess-mcp-server", "0.1.17", "chess-mcp-server", aliases=("Chess MCP Server",)),
    pypi("biopython", "biopython-mcp", "0.1.8", "biopython-mcp", aliases=("BioPython MCP",)),
    pypi("lean-lsp", "lean-lsp-mcp", "0.32.0", "lean-lsp-mcp", aliases=("Lean LSP MCP", "Lean 4 theorem prover")),
)

# Packages tried and left out, with why (NOTES-registry.md): they did not install or list here, or they copy a
# server of the shared catalogs.
NOT_LISTED: dict[str, str] = {
    "@azure-devops/mcp@2.10.0": "its keytar dependency builds against libsecret, absent; without install scripts "
    "the server cannot load keytar and exits",
    "@supabase/mcp-server-supabase@0.13.0": "tools/list calls the Supabase API (fetch failed)",
    "@stripe/mcp@0.3.3": "a proxy to Stripe's remote MCP server, unreachable here",
    "@bytebase/dbhub@1.4.0": "its demo database needs node:sqlite (Node 22); other sources need a running database",
    "@heroku/mcp-server@1.2.8": "exits at start: cannot resolve a module of its @modelcontextprotocol/sdk",
    "@a-bonus/google-docs-mcp@1.11.3": "starts an interactive Google sign-in before it serves",
    "linear-mcp@1.2.0": "installs no executable",
    "@negokaz/excel-mcp-server@0.12.0": "tool names copy the shared catalogs' excel server (Jaccard 0.83)",
    "@henkey/postgres-mcp-server@1.0.7": "tool names copy the shared catalogs' postgresql-mcp-server (Jaccard 1.0)",
    "mcp-server-code-runner@0.1.8": "the shared catalogs' mcp-server-code-runner (Jaccard 1.0)",
    "@browserbasehq/mcp-server-browserbase@2.4.3": "Browserbase's own server, as the shared catalogs' mcp-browserbase",
    "@modelcontextprotocol/server-redis@2025.4.25": "from modelcontextprotocol/servers, a repository the shared "
    "catalogs take servers from",
    "bilibili-mcp-tools@0.1.1": "a republished copy of the shared catalogs' bilibili-mcp-server (its four tool "
    "names and more)",
    "dbt-mcp@2.8.0": "needs Python 3.12; this machine has 3.11",
    "pagerduty-mcp@1.1.0": "needs Python 3.12; this machine has 3.11",
    "ha-mcp@8.7.0": "needs Python 3.13; this machine has 3.11",
    "bach-lunar-mcp@1.0.0": "needs Python 3.12; this machine has 3.11",
    "chroma-mcp@0.2.6": "exits at start: the mcp and pydantic versions pip picks do not work together",
    "mcp-ocr@0.2.0": "exits at start without the tesseract program",
    "astronomy-mcp-server@0.1.0": "exits at start: imports FastMCP from mcp, which no mcp release exports",
    "alibaba-cloud-ops-mcp-server@0.9.27": "fetches Alibaba Cloud's API metadata at start, unreachable here",
    "mcp-scholarly@0.1.0": "exits at start: the bibtexparser pip picks lacks a module its scholarly dependency imports",
    "postgres-mcp@0.3.0": "needs Python 3.12; this machine has 3.11",
    "yfmcp@0.14.0": "needs Python 3.12; this machine has 3.11",
}


def install_dir(spec: ServerSpec, scratch: Path) -> Path:
    return scratch / spec.registry / spec.key


def executable(spec: ServerSpec, scratch: Path) -> Path:
    folder = install_dir(spec, scratch)
    return folder / "node_modules" / ".bin" / spec.command if spec.registry == "npm" else folder / "bin" / spec.command


def install(spec: ServerSpec, scratch: Path) -> None:
    folder = install_dir(spec, scratch)
    folder.mkdir(parents=True, exist_ok=True)
    if spec.registry == "npm":
        command = [
            "npm",
            "install",
            "--prefix",
            str(folder),
            f"{spec.package}@{spec.version}",
            "--no-audit",
            "--no-fund",
        ]
        command += ["--ignore-scripts"] if spec.ignore_scripts else []
    else:
        if not (folder / "bin" / "pip").exists():
            subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        command = [str(folder / "bin" / "pip"), "install", "-q", f"{spec.package}=={spec.version}", *spec.also]
    subprocess.run(command, check=True, env={**os.environ, **NO_DOWNLOADS}, timeout=INSTALL_TIMEOUT_SECONDS)


def license_of(spec: ServerSpec, scratch: Path) -> str:
    """The license the installed package declares (npm `license`; a wheel's License-Expression, License or
    classifier), else the first line of the license file it ships, said to be only that."""
    folder = install_dir(spec, scratch)
    if spec.registry == "npm":
        package_dir = folder / "node_modules" / spec.package
        manifest = cast(dict[str, Any], json.loads((package_dir / "package.json").read_text()))
        declared = manifest.get("license") or ""
        if not isinstance(declared, str):
            declared = str(cast(dict[str, Any], declared).get("type", ""))
        shipped = sorted(package_dir.glob("LICEN[CS]E*"))
        if declared or not shipped:
            return declared
        return f"not declared; {shipped[0].name} begins: {first_line(shipped[0].read_text())}"
    # The License field holds a whole license text in some packages; its first line is kept only when short.
    script = (
        "import importlib.metadata as m, sys\n"
        "d = m.metadata(sys.argv[1])\n"
        "text = (d.get('License') or '').strip().splitlines()\n"
        "short = text[0] if text and len(text[0]) <= 60 else ''\n"
        "classified = [c.split(' :: ')[-1] for c in d.get_all('Classifier') or [] if c.startswith('License ::')]\n"
        "files = [f for f in m.files(sys.argv[1]) or [] if f.name.upper().startswith(('LICENSE', 'LICENCE'))]\n"
        "shipped = files[0].read_text().strip().splitlines()[0] if files else ''\n"
        "found = d.get('License-Expression') or short or ', '.join(classified)\n"
        "print(found or (f'not declared; {files[0].name} begins: {shipped}' if files else ''))\n"
    )
    python = str(folder / "bin" / "python")
    done = subprocess.run([python, "-c", script, spec.package], check=False, capture_output=True, text=True)
    return done.stdout.strip()


def first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def write_dummy_files(scratch: Path) -> None:
    """Files some servers must find at start (a Google OAuth client file); every value in them is a dummy."""
    client = {
        "client_id": "dummy.apps.googleusercontent.com",
        "client_secret": DUMMY,
        "redirect_uris": ["http://localhost"],
    }
    (scratch / "dummy-gcp-oauth.keys.json").write_text(json.dumps({"installed": client}))


def server_parameters(spec: ServerSpec, scratch: Path) -> StdioServerParameters:
    # A home of its own, so no server reads or writes a real user's configuration.
    home = scratch / "home" / spec.key
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "HOME": str(home),
        **NO_DOWNLOADS,
        **{name: value.format(scratch=scratch) for name, value in spec.env.items()},
    }
    return StdioServerParameters(command=str(executable(spec, scratch)), args=list(spec.args), env=env, cwd=home)


async def list_tools(spec: ServerSpec, scratch: Path) -> list[dict[str, Any]]:
    """Every tool the started server lists, page by page, with the fields a client sends to the model."""
    log = scratch / "logs" / f"{spec.key}.stderr.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    tools: list[dict[str, Any]] = []
    with log.open("w") as errlog, anyio.fail_after(LIST_TIMEOUT_SECONDS):
        async with stdio_session(server_parameters(spec, scratch), errlog) as client:
            cursor: str | None = None
            while True:
                page = await client.list_tools(cursor=cursor)
                for tool in page.tools:
                    wire = tool.model_dump(by_alias=True, exclude_none=True, mode="json")
                    tools.append({name: wire[name] for name in KEPT_TOOL_FIELDS if name in wire})
                cursor = page.next_cursor
                if cursor is None:
                    return tools


def listing_sha256(tools: list[dict[str, Any]]) -> str:
    """The SHA-256 of a listing as canonical JSON (sorted keys, no spaces, UTF-8)."""
    text = json.dumps(tools, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def provenance_of(spec: ServerSpec, scratch: Path, tools: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "registry": spec.registry,
        "package": spec.package,
        "version": spec.version,
        "also_installed": list(spec.also),
        "command": [spec.command, *spec.args],
        "env_names": sorted(spec.env),
        "license": license_of(spec, scratch),
        "listed_on": datetime.datetime.now(datetime.UTC).date().isoformat(),
        "tools": len(tools),
        "listing_sha256": listing_sha256(tools),
    }


def read_servers(path: Path) -> dict[str, Any]:
    return cast(dict[str, Any], json.loads(path.read_text())["servers"]) if path.exists() else {}


def write_servers(path: Path, servers: dict[str, Any]) -> None:
    ordered = {key: servers[key] for key in sorted(servers)}
    path.write_text(json.dumps({"servers": ordered}, ensure_ascii=False, indent=1) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", default=[], help="server keys to (re)list; default: all")
    parser.add_argument("--scratch", type=Path, default=DEFAULT_SCRATCH, help="where packages are installed")
    parser.add_argument("--no-install", action="store_true", help="list what is already installed")
    args = parser.parse_args()
    only = set(cast(list[str], args.only))
    scratch = cast(Path, args.scratch)
    catalog, provenance = read_servers(CATALOG), read_servers(PROVENANCE)
    failures = 0
    scratch.mkdir(parents=True, exist_ok=True)
    write_dummy_files(scratch)
    for spec in SERVERS:
        if only and spec.key not in only:
            continue
        try:
            if not args.no_install:
                install(spec, scratch)
            tools = anyio.run(list_tools, spec, scratch)
        except Exception as error:  # a server that fails is reported; the others go on
            failures += 1
            print(f"FAILED {spec.key}: {type(error).__name__}: {error}", file=sys.stderr)
            continue
        catalog[spec.key] = {"aliases": list(spec.aliases), "tools": tools}
        provenance[spec.key] = provenance_of(spec, scratch, tools)
        print(f"{spec.key}: {len(tools)} tools")
    write_servers(CATALOG, catalog)
    write_servers(PROVENANCE, provenance)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
