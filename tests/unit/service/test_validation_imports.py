"""The start-up race: the validation warm-up and the first call import jsonschema at the same moment.

Two threads importing jsonschema's modules at once can each hold a module the other needs and see it
partially initialized (`cannot import name 'Draft3Validator'`, `_DeadlockError`). It failed about one
session in fifteen whose first request was a tool call. Each run needs a fresh interpreter (nothing is
purged from `sys.modules`); a meta path hook that pauses before every import widens the window in which a
module is half-built, so that without one lock over those imports most runs fail, not a few.
"""

from __future__ import annotations

import json
import subprocess
import sys

from gateway_testing import ROOT

RUNS = 12
RUN_SECONDS = 60.0
IMPORT_PAUSE_SECONDS = 0.001

RACE = f"""
import json, sys, threading, time

from mcp_gateway.service import arguments


class PauseBeforeEachImport:
    def find_spec(self, name, path=None, target=None):
        time.sleep({IMPORT_PAUSE_SECONDS})  # lets the other thread run while a module is half-built
        return None  # the ordinary finders do the import


sys.meta_path.insert(0, PauseBeforeEachImport())
both_ready = threading.Barrier(2)
failures = []


def warm_up():
    both_ready.wait()
    try:
        arguments.prepare()
    except Exception as error:
        failures.append(repr(error))


thread = threading.Thread(target=warm_up)
thread.start()
both_ready.wait()
problems = []
try:
    schema = {{"type": "object", "properties": {{"a": {{"type": "string"}}}}}}
    problems = list(arguments.check_arguments(schema, {{"a": 1}}).problems)
except Exception as error:
    failures.append(repr(error))
thread.join()
print(json.dumps({{"failures": failures, "problems": problems}}))
"""


def test_the_warm_up_and_the_first_check_importing_at_once_never_fail() -> None:
    outcomes: list[dict[str, list[str]]] = []
    for _ in range(RUNS):
        done = subprocess.run(
            [sys.executable, "-c", RACE], capture_output=True, text=True, timeout=RUN_SECONDS, cwd=ROOT, check=False
        )
        assert done.returncode == 0, done.stderr
        outcomes.append(json.loads(done.stdout))
    assert [outcome["failures"] for outcome in outcomes] == [[]] * RUNS
    assert all(outcome["problems"] == ["a: 1 is not of type 'string'"] for outcome in outcomes)
