/*
 * Model answers on arbitrary bytes: the map answer parser, the reduce
 * answer parser and the JSON extraction beneath both.
 */
#include "answer.h"
#include "llm.h"
#include "reduce.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
		for (i = 0; i < answer.nfindings; i++)
			if (!answer.findings[i].file || !answer.findings[i].rule_id ||
			    answer.findings[i].end_line < answer.findings[i].line)
				abort();
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
