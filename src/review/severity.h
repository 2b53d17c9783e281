#ifndef REVLINE_SEVERITY_H
#define REVLINE_SEVERITY_H

#include <stdbool.h>

/* X(ID, name, SARIF level), least severe first, so they compare with < and >. */
#define SEVERITY_LIST(X) \
	X(SEV_NITPICK,  "nitpick",  "note") \
	X(SEV_MINOR,    "minor",    "warning") \
	X(SEV_MAJOR,    "major",    "error") \
	X(SEV_CRITICAL, "critical", "error")

enum severity {
#define SEVERITY_ENUM(id, name, sarif) id,
	SEVERITY_LIST(SEVERITY_ENUM)
#undef SEVERITY_ENUM
	SEV_COUNT
};

const char *severity_name(enum severity severity);
const char *severity_sarif_level(enum severity severity);
/* false when the name is not a severity. */
bool severity_parse(enum severity *out, const char *name);

#endif
