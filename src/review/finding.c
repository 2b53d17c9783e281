#include "finding.h"
#include "status.h"

#include <ctype.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>

static void evidence_release(struct evidence *ev)
{
	free(ev->code_examined);
	free(ev->method);
	free(ev->where_checked);
}

bool finding_in_message(const struct finding *f)
{
	return f->verify_note && !strncmp(f->verify_note, FINDING_IN_MESSAGE, strlen(FINDING_IN_MESSAGE));
}

void finding_release(struct finding *f)
{
	size_t i;

	free(f->rule_id);
	free(f->file);
	free(f->category);
	free(f->title);
	free(f->issue);
	free(f->suggestion);
	evidence_release(&f->evidence);
	free(f->verify_note);
	free(f->suppressed_by);
	for (i = 0; i < f->nfrom; i++)
		free(f->from_rules[i]);
	free(f->from_rules);
	memset(f, 0, sizeof(*f));
}

void findings_free(struct finding *findings, size_t count)
{
	size_t i;

	for (i = 0; findings && i < count; i++)
		finding_release(&findings[i]);
	free(findings);
}

static int dup_str(char **out, const char *s)
{
	*out = NULL;
	if (!s)
		return 0;
	*out = strdup(s);
	return *out ? 0 : error_nomem();
}

int finding_copy(struct finding *out, const struct finding *from)
{
	size_t i;
	int error = 0;

	*out = *from;
	out->rule_id = out->file = out->category = out->title = out->issue = NULL;
	out->suggestion = out->verify_note = out->suppressed_by = NULL;
	out->evidence.code_examined = out->evidence.method = out->evidence.where_checked = NULL;
	out->from_rules = NULL;
	out->nfrom = 0;
	if ((error = dup_str(&out->rule_id, from->rule_id)) ||
	    (error = dup_str(&out->file, from->file)) ||
	    (error = dup_str(&out->category, from->category)) ||
	    (error = dup_str(&out->title, from->title)) ||
	    (error = dup_str(&out->issue, from->issue)) ||
	    (error = dup_str(&out->suggestion, from->suggestion)) ||
	    (error = dup_str(&out->verify_note, from->verify_note)) ||
	    (error = dup_str(&out->suppressed_by, from->suppressed_by)) ||
	    (error = dup_str(&out->evidence.code_examined, from->evidence.code_examined)) ||
	    (error = dup_str(&out->evidence.method, from->evidence.method)) ||
	    (error = dup_str(&out->evidence.where_checked, from->evidence.where_checked)))
		goto fail;
	if (from->nfrom) {
		if (!(out->from_rules = calloc(from->nfrom, sizeof(char *)))) {
			error = error_nomem();
			goto fail;
		}
		for (i = 0; i < from->nfrom; i++, out->nfrom++)
			if ((error = dup_str(&out->from_rules[i], from->from_rules[i])))
				goto fail;
	}
	return 0;
fail:
	finding_release(out);
	return error;
}

/*
 * The examined code without what changes when code is re-indented or
 * re-quoted from a diff: the +/- marker at a line's start and every blank.
 */
static void normalised_code(struct buf *out, const char *code)
{
	bool line_start = true;

	for (; code && *code; code++) {
		if (*code == '\n') {
			line_start = true;
			continue;
		}
		if (line_start && (*code == '+' || *code == '-') && code[1] != *code) {
			line_start = false;
			continue;
		}
		line_start = false;
		if (!isspace((unsigned char)*code))
			buf_putc(out, *code);
	}
}

void finding_fingerprint(struct finding *f)
{
	struct buf text = BUF_INIT;
	git_oid oid;

	buf_puts(&text, f->rule_id ? f->rule_id : "");
	buf_putc(&text, '\0');
	buf_puts(&text, f->file ? f->file : "");
	buf_putc(&text, '\0');
	normalised_code(&text, f->evidence.code_examined);
	if (!f->evidence.code_examined || !*f->evidence.code_examined)
		buf_puts(&text, f->title ? f->title : "");
	git_odb_hash(&oid, text.ptr ? text.ptr : "", text.len, GIT_OBJECT_BLOB);
	git_oid_tostr(f->fingerprint, sizeof(f->fingerprint), &oid);
	buf_release(&text);
}

int64_t finding_shown_id(const struct finding *f)
{
	return f->origin ? f->origin : f->id;
}
