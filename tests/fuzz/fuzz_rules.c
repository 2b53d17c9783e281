/*
 * libFuzzer target: the rule file parser (front matter, YAML, every field's
 * validation, the PCRE2 compile) on arbitrary bytes. It must not crash,
 * read out of bounds or leak; a rule it accepts must be complete, and a
 * rule it refuses must come with a fatal problem.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rules.h"
#include "status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool has_fatal(const struct rule_set *set)
{
	size_t i;

	for (i = 0; i < set->nproblems; i++) {
		if (!set->problems[i].path || !set->problems[i].message ||
		    set->problems[i].line < 0)
			abort();
		if (set->problems[i].fatal)
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rule_set set = { 0 };
	struct rule rule;
	int rc;

	rc = rule_parse(&rule, "fuzz.md", (const char *)data, size, &set);
	if (rc == 0) {
		if (!rule.id || !*rule.id || !rule.name || !rule.body || !rule.content ||
		    rule.severity >= SEV_COUNT || has_fatal(&set) ||
		    (rule.kind == RULE_LOCAL) != (rule.regex != NULL) ||
		    (rule.npatterns && !rule.patterns) || (rule.ncontext && !rule.context_files))
			abort();
		(void)rule_applies(&rule, "src/a/b.c");
	} else if (rc == RL_EPARSE) {
		if (rule.id || !has_fatal(&set))
			abort();
	} else if (rc != RL_ENOMEM) {
		abort();
	}
	rule_release(&rule);
	rules_release(&set);
	return 0;
}
