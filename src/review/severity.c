#include "severity.h"

#include <string.h>

static const struct {
	const char *name;
	const char *sarif;
} severities[] = {
#define SEVERITY_INFO(id, name, sarif) { name, sarif },
	SEVERITY_LIST(SEVERITY_INFO)
#undef SEVERITY_INFO
};

const char *severity_name(enum severity severity)
{
	return severity < SEV_COUNT ? severities[severity].name : "unknown";
}

const char *severity_sarif_level(enum severity severity)
{
	return severity < SEV_COUNT ? severities[severity].sarif : "note";
}

bool severity_parse(enum severity *out, const char *name)
{
	int i;

	for (i = 0; i < SEV_COUNT; i++)
		if (!strcmp(severities[i].name, name)) {
			*out = (enum severity)i;
			return true;
		}
	return false;
}
