#include "result.h"

#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {
#define RULE_STATUS_NAME(id, name) name,
	RULE_STATUS_LIST(RULE_STATUS_NAME)
#undef RULE_STATUS_NAME
};

#define NSTATUS (sizeof(status_names) / sizeof(status_names[0]))

const char *rule_status_name(enum rule_status status)
{
	return (size_t)status < NSTATUS ? status_names[status] : "unknown";
}

bool rule_status_settled(enum rule_status status)
{
	return status != RULE_QUEUED && status != RULE_RUNNING;
}

static void strings_free(char **items, size_t count)
{
	size_t i;

	for (i = 0; items && i < count; i++)
		free(items[i]);
	free(items);
}

void rule_result_release(struct rule_result *result)
{
	size_t i;

	free(result->error);
	free(result->reasoning);
	strings_free(result->file_references, result->nrefs);
	findings_free(result->findings, result->nfindings);
	result->error = result->reasoning = NULL;
	result->file_references = NULL;
	result->findings = NULL;
	result->nrefs = result->nfindings = 0;
	free(result->context);
	result->context = NULL;
	for (i = 0; i < result->nreads; i++) {
		free(result->reads[i].tool);
		free(result->reads[i].arguments);
		free(result->reads[i].error);
		free(result->reads[i].shown);
	}
	free(result->reads);
	result->reads = NULL;
	result->nreads = result->reads_alloc = 0;
}

void report_release(struct report *report)
{
	free(report->summary);
	free(report->overall_severity);
	strings_free(report->must_fix, report->nmust_fix);
	findings_free(report->findings, report->nfindings);
	free(report->fallback_reason);
	memset(report, 0, sizeof(*report));
}
