"""A check ten minutes ago, for live fix detection in the TUI.

    python3 history-live.py DB REPO_PATH

revline makes the database (`revline history` in the repository); this
adds one complete check on branch main, ten minutes before now, in which
the rule fast (tests/screen/rules/review/fast.md, as the run installs it
under REVLINE_DATADIR) needed attention with one finding in src/main.c.
The next check, started by the script, is the one that fix detection
compares it with: the finding is not the same one again, so the LLM is
asked, and its answer is slow enough to be seen coming.
"""
import json
import os
import sqlite3
import subprocess
import sys
import time

db_path, repo_path = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
revline = os.environ.get("REVLINE") or os.path.join(here, "..", "..", "..", "build", "bin", "revline")
subprocess.run([revline, "history"], cwd=repo_path, check=True, stdout=subprocess.DEVNULL)

rule_path = os.path.join(os.environ["REVLINE_DATADIR"], "rules", "fast.md")
with open(rule_path) as f:
    content = f.read()
created = (int(time.time()) - 600) * 1000
repo_key = os.path.realpath(repo_path).rstrip("/") or "/"

db = sqlite3.connect(db_path)
db.execute("PRAGMA foreign_keys = ON")
repo_id = db.execute("INSERT INTO repos (path, name, created_at) VALUES (?, ?, ?)",
                     (repo_key, os.path.basename(repo_key), created)).lastrowid
check_id = db.execute(
    "INSERT INTO checks (repo_id, branch, base_label, head_label, target, status, created_at, "
    "finished_at, duration_ms, rule_count, finding_count) VALUES (?, 'main', 'HEAD', "
    "'working tree', 'HEAD..working tree', 'complete', ?, ?, 1200, 1, 1)",
    (repo_id, created, created + 1200)).lastrowid
row = db.execute(
    "INSERT INTO check_threadlines (check_id, threadline_id, threadline_file_path, "
    "threadline_content, threadline_patterns, kind, severity, source) "
    "VALUES (?, 'fast', ?, ?, ?, 'llm', 'major', 'built-in')",
    (check_id, rule_path, content, json.dumps(["src/**/*.c"]))).lastrowid
db.execute("INSERT INTO check_results (check_threadline_id, status, reasoning, file_references, "
           "created_at) VALUES (?, 'attention', 'The last line is not counted without a newline.', "
           "'[\"src/main.c\"]', ?)", (row, created + 1000))
db.execute("INSERT INTO findings (check_id, check_threadline_id, rule_id, file, line, end_line, "
           "severity, title, verified, fingerprint, created_at) VALUES (?, ?, 'fast', "
           "'src/main.c', 18, 18, 'major', 'the last line is lost', 1, 'earlier', ?)",
           (check_id, row, created + 1000))
db.commit()
db.close()
