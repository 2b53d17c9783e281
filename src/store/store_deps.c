/*
 * A check's dependency analysis: check_dependencies (with the claims no
 * file bears out) and check_packages (each with its relation, the direct
 * dependency a transitive one comes through, its lock file, what a bot
 * claimed of it, and its advisories: fixed, brought, or still open).
 */
#include "store_deps.h"
#include "store_sql.h"
#include "deps.h"
#include "status.h"

#include <jansson.h>
#include <stdlib.h>

/* The ecosystems seen, as a JSON array of their names. */
static char *ecosystems_json(unsigned ecosystems)
{
	json_t *a = json_array();
	char *text;
	int i;

	for (i = 0; a && i < ECO_COUNT; i++)
		if (ecosystems & (1u << i))
			json_array_append_new(a, json_string(deps_ecosystem_name((enum deps_ecosystem)i)));
	text = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	return text;
}

static char *advisories_json(const struct deps_package *p)
{
	json_t *a = json_array();
	char *text;
	size_t i;

	for (i = 0; a && i < p->nadvisories; i++) {
		const struct deps_advisory *v = &p->advisories[i];

		json_array_append_new(a, json_pack("{s:s, s:s?, s:s, s:b, s:b}", "id", v->id, "summary", v->summary,
						   "severity", v->severity ? v->severity : "unknown", "fixed", v->fixed,
						   "introduced", v->introduced));
	}
	text = a ? json_dumps(a, JSON_COMPACT) : NULL;
	json_decref(a);
	return text;
}

/* What the commit messages claimed that no manifest or lock file bears out, as a JSON array. */
static char *claims_json(const struct deps_analysis *a)
{
	json_t *list = json_array();
	char *text;
	size_t i;

	for (i = 0; list && i < a->nclaims; i++)
		json_array_append_new(list, json_string(a->claims[i]));
	text = list ? json_dumps(list, JSON_COMPACT) : NULL;
	json_decref(list);
	return text;
}

static int summary_put(struct store *store, int64_t check_id, const struct deps_analysis *a, size_t checked,
		       const char *advisories_error)
{
	struct store_stmt *stmt = NULL;
	char *ecos = ecosystems_json(a->ecosystems), *claims = claims_json(a);
	int error;

	if (!ecos || !claims) {
		free(ecos);
		free(claims);
		return error_nomem();
	}
	if ((error = store_prepare(store, &stmt, "INSERT INTO check_dependencies (check_id, ecosystems, bot, "
				   "dependency_only, confidence, reason, advisories_checked, advisories_error, claims) "
				   "VALUES (:check, :ecosystems, :bot, :dependency_only, :confidence, :reason, "
				   ":checked, :error, :claims) ON CONFLICT (check_id) DO UPDATE SET ecosystems = "
				   "excluded.ecosystems, bot = excluded.bot, dependency_only = "
				   "excluded.dependency_only, confidence = excluded.confidence, reason = "
				   "excluded.reason, advisories_checked = excluded.advisories_checked, "
				   "advisories_error = excluded.advisories_error, claims = excluded.claims")) < 0)
		goto done;
	store_bind_int(stmt, ":check", check_id);
	store_bind_text(stmt, ":ecosystems", ecos);
	store_bind_text(stmt, ":bot", a->bot);
	store_bind_int(stmt, ":dependency_only", a->dependency_only);
	store_bind_text(stmt, ":confidence", deps_confidence_name(a->confidence));
	store_bind_text(stmt, ":reason", a->reason ? a->reason : "");
	store_bind_int(stmt, ":checked", (int64_t)checked);
	store_bind_text(stmt, ":error", advisories_error);
	store_bind_text(stmt, ":claims", claims);
	error = store_step_done(stmt);
done:
	store_finalize(stmt);
	free(ecos);
	free(claims);
	return error;
}

static int package_put(struct store *store, int64_t check_id, const struct deps_package *p)
{
	struct store_stmt *stmt = NULL;
	char *advisories = advisories_json(p);
	int error;

	if (!advisories)
		return error_nomem();
	if ((error = store_prepare(store, &stmt, "INSERT INTO check_packages (check_id, ecosystem, name, manifest, "
				   "from_spec, to_spec, bump, breaking, downgrade, advisories, relation, via, lock, "
				   "claimed) VALUES (:check, :ecosystem, :name, :manifest, :from, :to, :bump, "
				   ":breaking, :downgrade, :advisories, :relation, :via, :lock, :claimed)")) < 0)
		goto done;
	store_bind_int(stmt, ":check", check_id);
	store_bind_text(stmt, ":ecosystem", deps_ecosystem_name(p->ecosystem));
	store_bind_text(stmt, ":name", p->name);
	store_bind_text(stmt, ":manifest", p->manifest);
	store_bind_text(stmt, ":from", p->from);
	store_bind_text(stmt, ":to", p->to);
	store_bind_text(stmt, ":bump", deps_bump_name(p->bump));
	store_bind_int(stmt, ":breaking", p->breaking);
	store_bind_int(stmt, ":downgrade", p->downgrade);
	store_bind_text(stmt, ":advisories", advisories);
	store_bind_text(stmt, ":relation", deps_relation_name(p->relation));
	store_bind_text(stmt, ":via", p->via);
	store_bind_text(stmt, ":lock", p->lock);
	store_bind_text(stmt, ":claimed", p->claimed);
	error = store_step_done(stmt);
done:
	store_finalize(stmt);
	free(advisories);
	return error;
}

int store_deps_put(struct store *store, int64_t check_id, const struct deps_analysis *analysis,
		   size_t checked, const char *advisories_error)
{
	size_t i;
	int error;

	if ((error = store_begin(store)) < 0)
		return error;
	error = summary_put(store, check_id, analysis, checked, advisories_error);
	for (i = 0; !error && i < analysis->npackages; i++)
		error = package_put(store, check_id, &analysis->packages[i]);
	return store_end(store, error);
}
