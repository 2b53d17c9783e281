/*
 * An OSV record (https://ossf.github.io/osv-schema/) read for what revline
 * shows of an advisory: its severity and its summary.
 */
#include "osv_record.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A summary taken from "details" is its first line, cut to this. */
#define SUMMARY_MAX 200

/* CVSS 3.1's Roundup: up to one decimal, without floating-point surprises. */
static double cvss_roundup(double x)
{
	long i = (long)(x * 100000.0 + 0.5);

	if (i % 10000 == 0)
		return (double)i / 100000.0;
	return (double)(i / 10000 + 1) / 10.0;
}

static double power(double x, int n)
{
	double r = 1;

	while (n-- > 0)
		r *= x;
	return r;
}

struct cvss_metric {
	const char *name;
	const char *letters;
	double values[4];
};

/* The base metrics; PR's values are for an unchanged scope (changed below). */
static const struct cvss_metric cvss_metrics[] = {
	{ "AV", "NALP", { 0.85, 0.62, 0.55, 0.2 } },
	{ "AC", "LH",   { 0.77, 0.44 } },
	{ "PR", "NLH",  { 0.85, 0.62, 0.27 } },
	{ "UI", "NR",   { 0.85, 0.62 } },
	{ "S",  "UC",   { 0, 1 } },
	{ "C",  "HLN",  { 0.56, 0.22, 0 } },
	{ "I",  "HLN",  { 0.56, 0.22, 0 } },
	{ "A",  "HLN",  { 0.56, 0.22, 0 } },
};
#define NMETRICS (sizeof(cvss_metrics) / sizeof(cvss_metrics[0]))
enum { M_AV, M_AC, M_PR, M_UI, M_S, M_C, M_I, M_A };

/* One "NAME:V" of a vector into its metric's slot; others are ignored. */
static bool cvss_metric(double *values, int *letters, const char *part, size_t len)
{
	size_t i, name_len;
	const char *pos;

	for (i = 0; i < NMETRICS; i++) {
		name_len = strlen(cvss_metrics[i].name);
		if (len != name_len + 2 || strncmp(part, cvss_metrics[i].name, name_len) ||
		    part[name_len] != ':')
			continue;
		pos = strchr(cvss_metrics[i].letters, part[name_len + 1]);
		if (!pos || !*pos)
			return false;
		letters[i] = (int)(pos - cvss_metrics[i].letters);
		values[i] = cvss_metrics[i].values[letters[i]];
	}
	return true;
}

/* The base score of a CVSS 3.0 or 3.1 vector; false when it is not one. */
static bool cvss3_score(double *out, const char *vector)
{
	double v[NMETRICS], iss, impact, exploit, base;
	int letters[NMETRICS];
	const char *p;
	size_t i, len;
	bool changed;

	if (strncmp(vector, "CVSS:3.", 7))
		return false;
	for (i = 0; i < NMETRICS; i++)
		letters[i] = -1;
	for (p = strchr(vector, '/'); p && *p; p += len) {
		p++;
		len = strcspn(p, "/");
		if (!cvss_metric(v, letters, p, len))
			return false;
	}
	for (i = 0; i < NMETRICS; i++)
		if (letters[i] < 0)
			return false;
	changed = letters[M_S] == 1;
	if (changed && letters[M_PR] > 0)
		v[M_PR] = letters[M_PR] == 1 ? 0.68 : 0.5;
	iss = 1 - (1 - v[M_C]) * (1 - v[M_I]) * (1 - v[M_A]);
	impact = changed ? 7.52 * (iss - 0.029) - 3.25 * power(iss - 0.02, 15) : 6.42 * iss;
	exploit = 8.22 * v[M_AV] * v[M_AC] * v[M_PR] * v[M_UI];
	base = (changed ? 1.08 : 1.0) * (impact + exploit);
	*out = impact <= 0 ? 0 : cvss_roundup(base < 10 ? base : 10);
	return true;
}

static const char *band(double score)
{
	return score >= 9 ? "critical" : score >= 7 ? "high" : score >= 4 ? "medium" : "low";
}

static const char *named_severity(const char *s)
{
	static const char *const names[][2] = {
		{ "CRITICAL", "critical" }, { "HIGH", "high" }, { "MODERATE", "medium" },
		{ "MEDIUM", "medium" }, { "LOW", "low" },
	};
	size_t i;

	for (i = 0; s && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i][0]))
			return names[i][1];
	return NULL;
}

/* database_specific.severity, else a CVSS v3 vector's base score, else unknown. */
const char *osv_severity(const json_t *vuln)
{
	const char *named = named_severity(json_string_value(
		json_object_get(json_object_get(vuln, "database_specific"), "severity")));
	const json_t *entry;
	size_t i;
	double score;

	if (named)
		return named;
	json_array_foreach(json_object_get(vuln, "severity"), i, entry) {
		const char *type = json_string_value(json_object_get(entry, "type"));
		const char *vector = json_string_value(json_object_get(entry, "score"));

		if (type && vector && !strncmp(type, "CVSS_V3", 7) && cvss3_score(&score, vector))
			return band(score);
	}
	return "unknown";
}

/* The summary, else the first line of the details, cut on a character. */
char *osv_summary(const json_t *vuln)
{
	const char *s = json_string_value(json_object_get(vuln, "summary"));
	size_t len;

	if (!s || !*s)
		s = json_string_value(json_object_get(vuln, "details"));
	if (!s)
		return strdup("");
	s += strspn(s, " \t\r\n");
	len = strcspn(s, "\r\n");
	if (len > SUMMARY_MAX) {
		len = SUMMARY_MAX;
		while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	}
	return strndup(s, len);
}
