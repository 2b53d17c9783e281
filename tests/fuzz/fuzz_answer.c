/*
 * Model answers on arbitrary bytes: the map answer parser, the reduce
 * answer parser and the JSON extraction beneath both. The answer's bounds
 * (answer.h) hold whatever the bytes.
 */
#include "answer.h"
#include "llm.h"
#include "reduce.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A text field within ANSWER_FIELD_MAX and its "[... N bytes cut]" marker. */
static void check_field(const char *s)
{
	if (s && strlen(s) > ANSWER_FIELD_MAX + 40)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct rule rule = { .id = "r", .name = "Rule", .severity = SEV_MINOR };
	struct finding input[2] = { { 0 } };
	struct map_answer answer;
	struct report report;
	json_t *value = NULL;
	size_t i;

	if (llm_extract_json(&value, (const char *)data, size) == 0)
		json_decref(value);
	if (answer_parse(&answer, (const char *)data, size, &rule) == 0) {
		if (answer.nfindings > ANSWER_FINDINGS_MAX || answer.nrefs > ANSWER_REFS_MAX)
			abort();
		/* The reasoning may end with the notes of what was dropped. */
		if (answer.reasoning && strlen(answer.reasoning) > ANSWER_FIELD_MAX + 200)
			abort();
		for (i = 0; i < answer.nrefs; i++)
			if (strlen(answer.file_references[i]) > ANSWER_REF_BYTES + 40)
				abort();
		for (i = 0; i < answer.nfindings; i++) {
			const struct finding *f = &answer.findings[i];

			if (!f->file || !f->rule_id || f->end_line < f->line)
				abort();
			check_field(f->file);
			check_field(f->title);
			check_field(f->issue);
			check_field(f->suggestion);
			check_field(f->category);
			check_field(f->evidence.code_examined);
			check_field(f->evidence.method);
			check_field(f->evidence.where_checked);
		}
		answer_release(&answer);
	}
	input[0] = (struct finding){ .rule_id = "r", .file = "a.c", .line = 3, .end_line = 3, .title = "t" };
	input[1] = (struct finding){ .rule_id = "s", .file = "a.c", .line = 4, .end_line = 5, .title = "u" };
	if (reduce_parse(&report, (const char *)data, size, input, 2) == 0) {
		/* Nothing is lost: every input is in the report, merged or not. */
		if (report.nfindings < 1 || report.nfindings > 2 + 2)
			abort();
		report_release(&report);
	}
	return 0;
}
