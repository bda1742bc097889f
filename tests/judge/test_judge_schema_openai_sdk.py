"""The reply schema against OpenAI's own strict-schema check: ``toStrictJsonSchema`` of the
``openai`` npm package (the SDK's normalizer for strict structured outputs, which throws
on shapes the API refuses, such as a union at the root). It must accept the verdict
schema unchanged, and refuse the same union moved to the root.

Slow: installs the pinned package from the npm registry with node's own client."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from uta_tasks.judge.labels import VERDICT_SCHEMA

pytestmark = pytest.mark.slow

OPENAI_NPM = "openai@7.59.0"
CHECK = """
const { toStrictJsonSchema } = require('openai/lib/transform');
const fs = require('fs');
const schema = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const out = { unchanged: null, root_union_error: null };
out.unchanged = JSON.stringify(toStrictJsonSchema(schema)) === JSON.stringify(schema);
try {
  toStrictJsonSchema({ type: 'object', anyOf: schema.properties.decision.anyOf });
} catch (e) { out.root_union_error = String(e.message); }
console.log(JSON.stringify(out));
"""


def test_openai_sdk_accepts_the_schema_unchanged(tmp_path: Path) -> None:
    node, npm = shutil.which("node"), shutil.which("npm")
    assert node and npm, "node and npm are needed (Debian: apt-get install nodejs npm)"
    subprocess.run([npm, "install", "--silent", "--no-audit", "--no-fund", "--prefix", str(tmp_path), OPENAI_NPM],
                   check=True, timeout=300, capture_output=True)
    (tmp_path / "schema.json").write_text(json.dumps(VERDICT_SCHEMA))
    (tmp_path / "check.js").write_text(CHECK)
    done = subprocess.run([node, "check.js", "schema.json"], cwd=tmp_path, check=True, timeout=60,
                          capture_output=True, text=True)
    result = json.loads(done.stdout)
    assert result["unchanged"] is True  # already strict: nothing added, nothing refused
    assert result["root_union_error"] and "anyOf" in result["root_union_error"]
