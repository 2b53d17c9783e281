/* What a rule was shown of the repository and what its model read, said for the panes. */
#include "context.h"

#include <string.h>

static const char *kind_words(enum pack_kind kind)
{
	switch (kind) {
	case PACK_CALLERS: return "callers of";
	case PACK_ENCLOSING: return "function";
	default: return "definition of";
	}
}

int context_item_text(struct buf *out, const struct pack_item *it)
{
	int error = buf_printf(out, "%s %s in %s:%u", kind_words(it->kind), it->symbol, it->path, it->first);

	if (!error && it->last > it->first)
		error = buf_printf(out, "-%u", it->last);
	if (!error && it->kind == PACK_CALLERS)
		error = buf_printf(out, " (%u reference%s)", it->sites, it->sites == 1 ? "" : "s");
	return error;
}

size_t context_rule_items(const struct check *check, size_t rule)
{
	struct check_context_view v;
	size_t i, n = 0;

	check_context_view(&v, check);
	for (i = 0; v.pack && i < v.pack->count; i++)
		n += check_context_rule_sent(check, rule, i);
	return n;
}

/* Whether an item sent to the rule before this one has its kind and symbol (said with it). */
static bool said_before(const struct check *check, size_t rule, const struct pack *pack, size_t item)
{
	const struct pack_item *it = &pack->items[item];
	size_t i;

	for (i = 0; i < item; i++)
		if (pack->items[i].kind == it->kind && !strcmp(pack->items[i].symbol, it->symbol) &&
		    check_context_rule_sent(check, rule, i))
			return true;
	return false;
}

/* "callers of verify in web/api.py, web/admin.py; function main in src/main.c": the items by kind and symbol. */
static int items_short(struct buf *out, const struct check *check, size_t rule, const struct pack *pack)
{
	size_t i, k;
	bool first = true;
	int error = 0;

	for (i = 0; i < pack->count && !error; i++) {
		if (!check_context_rule_sent(check, rule, i) || said_before(check, rule, pack, i))
			continue;
		error = buf_printf(out, "%s%s %s in %s", first ? ": " : "; ", kind_words(pack->items[i].kind),
				   pack->items[i].symbol, pack->items[i].path);
		first = false;
		for (k = i + 1; k < pack->count && !error; k++)
			if (pack->items[k].kind == pack->items[i].kind &&
			    !strcmp(pack->items[k].symbol, pack->items[i].symbol) &&
			    check_context_rule_sent(check, rule, k))
				error = buf_printf(out, ", %s", pack->items[k].path);
	}
	return error;
}

int context_rule_row(struct buf *out, const struct check *check, size_t rule)
{
	const struct rule_result *res = check_result(check, rule);
	struct check_context_view v;
	size_t n;
	int error;

	if (!res->context)
		return 0;
	if (!strcmp(res->context, "off") || !strcmp(res->context, "nothing found"))
		return buf_printf(out, "context: %s", res->context);
	check_context_view(&v, check);
	n = context_rule_items(check, rule);
	error = buf_printf(out, "context: %zu item%s", n, n == 1 ? "" : "s");
	if (!error && res->nreads)
		error = buf_printf(out, ", %zu read%s", res->nreads, res->nreads == 1 ? "" : "s");
	if (!error && v.pack)
		error = items_short(out, check, rule, v.pack);
	return error;
}

const char *context_off_reason(const struct check *check, size_t rule)
{
	struct check_context_view v;

	check_context_view(&v, check);
	if (v.mode == CONTEXT_NONE)
		return "revline.context is none";
	if (check_result(check, rule)->rule->context == RULE_CONTEXT_NONE)
		return "its front matter says context: none";
	return NULL;
}

bool context_finding_of(const struct finding *f, const struct rule_result *res)
{
	size_t i;

	if (!f->nfrom)
		return f->rule_id && !strcmp(f->rule_id, res->rule->id);
	for (i = 0; i < f->nfrom; i++)
		if (!strcmp(f->from_rules[i], res->rule->id))
			return true;
	return false;
}
