#ifndef REVLINE_OSV_RECORD_H
#define REVLINE_OSV_RECORD_H

#include <jansson.h>

/*
 * What revline shows of an OSV record (GET /v1/vulns/{id}): its severity,
 * "critical", "high", "medium", "low" (database_specific.severity, else
 * the base score of a CVSS v3.0 or v3.1 vector in severity, by CVSS's
 * bands), or "unknown"; and its summary, else the first line of its
 * details, cut to 200 bytes on a character (NULL: out of memory).
 */
const char *osv_severity(const json_t *record);
char *osv_summary(const json_t *record);

#endif
