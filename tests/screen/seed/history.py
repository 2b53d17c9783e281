"""A week of review history for the history and stats screens.

    python3 history.py DB REPO_PATH

revline makes the database (its own schema, by running `revline history`
in the repository once); this script adds checks, results, findings, fixes
and feedback with fixed times, so that the screens are the same on every
run (the scripts set TZ=UTC for the times shown).

Seven checks on branch main and two on feature/login; rules error-handling
(major), injection (critical), sensitive-logging (minor) and
secrets-handling (major). A = attention with N findings, C = compliant,
T = timed out, - = not in the check:

    id  when (UTC)        branch         status    errors inj  logging secrets
    1   2026-03-02 09:00  main           complete  A2     A1   A1      C
    2   2026-03-02 09:04  main           complete  A1     C    C       C
    3   2026-03-02 09:40  main           partial   C      A1   C       T
    4   2026-03-02 14:10  feature/login  complete  C      A2   -       -
    5   2026-03-02 17:30  feature/login  complete  C      -    -       -
    6   2026-03-03 10:05  main           complete  C      C    C       C
    7   2026-03-03 10:30  main           complete  A1     C    C       C

Fixes (fix detection between consecutive checks of a branch):

    F1  1->2  injection          CODE_CHANGE           240 s  llm_analysis   marked correct
    F2  1->2  sensitive-logging  THREADLINE_CHANGED    240 s  llm_analysis
    F3  2->3  error-handling     CODE_CHANGE          2160 s  llm_analysis
    F4  4->5  injection          THREADLINE_DELETED  12000 s  deterministic
    F5  3->6  injection          CODE_CHANGE         87900 s  llm_analysis

error-handling of check 1 (still there in check 2) and of check 7 (the
latest) are not fixed. Violations 7, fixes 5 (fix rate 71.4%); buckets
2/1/1/1; types 3/1/1. One finding of error-handling in check 1 is marked a
false positive (25% of its 4 findings).
"""
import calendar
import json
import os
import sqlite3
import subprocess
import sys

db_path, repo_path = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
revline = os.environ.get("REVLINE") or os.path.join(here, "..", "..", "..", "build", "bin", "revline")

# The schema is revline's: let it make the database.
subprocess.run([revline, "history"], cwd=repo_path, check=True, stdout=subprocess.DEVNULL)


def ms(day, hour, minute):
    return calendar.timegm((2026, 3, day, hour, minute, 0)) * 1000


RULES = {
    "error-handling": ("major", "Errors are handled, not swallowed."),
    "injection": ("critical", "No query or command is built from input."),
    "sensitive-logging": ("minor", "Logs carry no secrets or personal data."),
    "secrets-handling": ("major", "Secrets come from the environment, never from code."),
}

CHECKS = [
    # id, when, branch, status, duration ms, {rule: (status, findings)}
    (1, ms(2, 9, 0), "main", "complete", 41200,
     {"error-handling": ("attention", 2), "injection": ("attention", 1),
      "sensitive-logging": ("attention", 1), "secrets-handling": ("compliant", 0)}),
    (2, ms(2, 9, 4), "main", "complete", 38900,
     {"error-handling": ("attention", 1), "injection": ("compliant", 0),
      "sensitive-logging": ("compliant", 0), "secrets-handling": ("compliant", 0)}),
    (3, ms(2, 9, 40), "main", "partial", 61000,
     {"error-handling": ("compliant", 0), "injection": ("attention", 1),
      "sensitive-logging": ("compliant", 0), "secrets-handling": ("timeout", 0)}),
    (4, ms(2, 14, 10), "feature/login", "complete", 12500,
     {"error-handling": ("compliant", 0), "injection": ("attention", 2)}),
    (5, ms(2, 17, 30), "feature/login", "complete", 9800,
     {"error-handling": ("compliant", 0)}),
    (6, ms(3, 10, 5), "main", "complete", 40100,
     {"error-handling": ("compliant", 0), "injection": ("compliant", 0),
      "sensitive-logging": ("compliant", 0), "secrets-handling": ("compliant", 0)}),
    (7, ms(3, 10, 30), "main", "complete", 39400,
     {"error-handling": ("attention", 1), "injection": ("compliant", 0),
      "sensitive-logging": ("compliant", 0), "secrets-handling": ("compliant", 0)}),
]

FILES = {
    "error-handling": ["src/util.c", "src/main.c"],
    "injection": ["src/db.c"],
    "sensitive-logging": ["src/log.c"],
    "secrets-handling": [],
}

REASONS = {
    "error-handling": "The result of fopen is used without a check, and a failed read is ignored.",
    "injection": "The query is built with sprintf from the user name.",
    "sensitive-logging": "The password is written to the debug log.",
}

FIXES = [
    # violation check, fix check, rule, type, seconds, method, explanation, files, feedback
    (1, 2, "injection", "CODE_CHANGE", 240, "llm_analysis",
     "The query in src/db.c now binds the user name as a parameter instead of "
     "formatting it into the SQL text, which is what the rule asks for.",
     ["src/db.c"], "fix_correct"),
    (1, 2, "sensitive-logging", "THREADLINE_CHANGED", 240, "llm_analysis",
     "The rule now allows the debug log in tests; the line it flagged is a test.",
     ["src/log.c", "threadlines/sensitive-logging.md"], None),
    (2, 3, "error-handling", "CODE_CHANGE", 2160, "llm_analysis",
     "fopen's result is checked and the error is returned to the caller.",
     ["src/util.c"], None),
    (4, 5, "injection", "THREADLINE_DELETED", 12000, "deterministic",
     "The rule is not in this check and its file is gone: it was deleted, "
     "so the violation is no longer enforced.", ["src/db.c"], None),
    (3, 6, "injection", "CODE_CHANGE", 87900, "llm_analysis",
     "The remaining query uses a prepared statement.", ["src/db.c", "src/api.c"], None),
]

repo_key = os.path.realpath(repo_path).rstrip("/") or "/"
db = sqlite3.connect(db_path)
db.execute("PRAGMA foreign_keys = ON")
repo_id = db.execute("INSERT INTO repos (path, name, created_at) VALUES (?, ?, ?)",
                     (repo_key, os.path.basename(repo_key), ms(2, 9, 0))).lastrowid

# What each check billed: tokens in (of which read from the prompt cache)
# and out, priced as gpt-5-mini (0.25 / 0.025 / 2.00 USD per million);
# check 4's cost is not known (a model without prices).
USAGE = {1: (48210, 0, 2980), 2: (47900, 40960, 2510), 3: (52300, 44032, 3120),
         4: (15400, 9216, 1020), 5: (14800, 12288, 930), 6: (47650, 40960, 2400),
         7: (47600, 41984, 2380)}


def cost(tokens_in, cached, tokens_out):
    return ((tokens_in - cached) * 0.25 + cached * 0.025 + tokens_out * 2.00) / 1e6


threadline = {}       # (check, rule) -> check_threadlines id
first_finding = {}    # (check, rule) -> the first finding's id
for check_id, created, branch, status, duration, results in CHECKS:
    findings = sum(n for _, n in results.values())
    db.execute(
        "INSERT INTO checks (id, repo_id, branch, base_label, base_oid, head_label, target, "
        "status, created_at, finished_at, duration_ms, rule_count, finding_count) "
        "VALUES (?, ?, ?, 'HEAD', '4e1d2a0', 'working tree', 'HEAD (4e1d2a0)..working tree', "
        "?, ?, ?, ?, ?, ?)",
        (check_id, repo_id, branch, status, created, created + duration, duration, len(results),
         findings))
    tokens_in, cached, tokens_out = USAGE[check_id]
    db.execute("UPDATE checks SET tokens_in = ?, tokens_cached = ?, tokens_out = ?, cost_usd = ? "
               "WHERE id = ?", (tokens_in, cached, tokens_out,
                                None if check_id == 4 else cost(tokens_in, cached, tokens_out),
                                check_id))
    for rule, (result, n) in results.items():
        severity, body = RULES[rule]
        row = db.execute(
            "INSERT INTO check_threadlines (check_id, threadline_id, threadline_file_path, "
            "threadline_content, threadline_patterns, kind, severity, source) "
            "VALUES (?, ?, ?, ?, '[\"src/**\"]', 'llm', ?, 'repository')",
            (check_id, rule, "threadlines/%s.md" % rule,
             "---\nid: %s\nseverity: %s\n---\n%s\n" % (rule, severity, body), severity)).lastrowid
        threadline[(check_id, rule)] = row
        attention = result == "attention"
        db.execute(
            "INSERT INTO check_results (check_threadline_id, status, reasoning, file_references, "
            "error, attempts, duration_ms, created_at) VALUES (?, ?, ?, ?, ?, 1, 5000, ?)",
            (row, result, REASONS.get(rule) if attention else None,
             json.dumps(FILES[rule][:1] if attention else []),
             "no answer in 60 s" if result == "timeout" else None, created + 5000))
        for i in range(n):
            finding = db.execute(
                "INSERT INTO findings (check_id, check_threadline_id, rule_id, file, line, "
                "end_line, severity, title, issue, verified, fingerprint, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)",
                (check_id, row, rule, FILES[rule][i % len(FILES[rule])], 10 + i, 10 + i,
                 severity, "%s problem %d" % (rule, i + 1), REASONS[rule],
                 "%s-%d-%d" % (rule, check_id, i), created + 5000)).lastrowid
            first_finding.setdefault((check_id, rule), finding)

for number, (before, after, rule, kind, seconds, method, explanation, files, feedback) in \
        enumerate(FIXES, 1):
    db.execute(
        "INSERT INTO violation_fixes (id, violation_check_id, fix_check_id, "
        "violation_threadline_id, threadline_id, threadline_file_path, file_references, "
        "fix_type, explanation, time_between_checks_seconds, detection_method, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (number, before, after, threadline[(before, rule)], rule, "threadlines/%s.md" % rule,
         json.dumps(files), kind, explanation, seconds, method, CHECKS[after - 1][1] + 60000))
    if feedback:
        db.execute("INSERT INTO feedback (fix_id, repo_id, kind, rule_id, created_at) "
                   "VALUES (?, ?, ?, ?, ?)", (number, repo_id, feedback, rule, ms(3, 8, 0)))

db.execute("INSERT INTO feedback (finding_id, repo_id, kind, rule_id, file, title, created_at) "
           "VALUES (?, ?, 'false_positive', 'error-handling', 'src/util.c', "
           "'error-handling problem 1', ?)",
           (first_finding[(1, "error-handling")], repo_id, ms(2, 9, 10)))
db.commit()
db.close()
