/*
 * The TOML manifests, Cargo.toml and pyproject.toml, read through the
 * vendored tomlc17 (the one TOML reader, that of the lock files too): the
 * document parsed whole, then its dependency tables walked. A text that is
 * not TOML is named as unreadable with tomlc17's line and reason, as a
 * package.json that is not JSON is.
 *
 * Cargo.toml: [dependencies], [dev-dependencies], [build-dependencies]
 * (and their underscored spellings), [workspace.dependencies] and
 * [target.CFG.*dependencies]; an entry is a version string or a table
 * whose version, or else whose source (git, path, workspace, ...), says
 * what is used. pyproject.toml: [project] dependencies and
 * optional-dependencies (PEP 621), [dependency-groups] (PEP 735), and
 * Poetry's [tool.poetry.dependencies], dev-dependencies and groups, whose
 * "python" is the interpreter and whose list of constraints is read by
 * its first.
 */
#include "deps_manifest.h"
#include "status.h"
#include "tomlc17.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* tomlc17's bound on nested arrays and inline tables (its BRACKET_LEVEL_MAX and BRACE_LEVEL_MAX). */
#define TOML_DEPTH_MAX 30
/* What each table's name begins with: the entries of one table meet there (struct dep's table). */
#define TABLE_NAME_MAX 512

int deps_toml_parse(struct toml_result_t **out, const char *text, size_t len, char *why, size_t size)
{
	struct toml_result_t *result;
	char *copy;
	const char *msg;
	int line;

	*out = NULL;
	*why = '\0';
	if (len >= INT32_MAX) {
		snprintf(why, size, "too large for TOML");
		return 1;
	}
	if (!(copy = malloc(len + 1)) || !(result = malloc(sizeof(*result)))) {
		free(copy);
		return error_nomem();
	}
	/* tomlc17 reads a NUL-terminated text. */
	memcpy(copy, text, len);
	copy[len] = '\0';
	*result = toml_parse(copy, (int)len);
	free(copy);
	if (result->ok) {
		*out = result;
		return 0;
	}
	/* tomlc17 says "(line 3) missing key": "line 3: missing key". */
	msg = result->errmsg;
	if (sscanf(msg, "(line %d) ", &line) != 1 || !(msg = strchr(msg, ')')) || !msg[1])
		snprintf(why, size, "not valid TOML: %s", result->errmsg);
	else if (!strcmp(msg + 2, "stack overflow"))
		snprintf(why, size, "nested deeper than %d levels, line %d", TOML_DEPTH_MAX, line);
	else
		snprintf(why, size, "not valid TOML, line %d: %s", line, msg + 2);
	deps_toml_free(result);
	return 1;
}

void deps_toml_free(struct toml_result_t *result)
{
	if (result) {
		toml_free(*result);
		free(result);
	}
}

/* ------------------------------------------------------------- entries */

/* Attributes of a dependency that say where it comes from when no version does. */
static const char *const source_keys[] = {
	"git", "branch", "tag", "rev", "path", "url", "registry", "workspace",
};

static bool is_source_key(const char *key)
{
	size_t i;

	for (i = 0; i < COUNT(source_keys); i++)
		if (!strcmp(key, source_keys[i]))
			return true;
	return false;
}

/* A source attribute as written: a string's text, a boolean or a number as TOML writes it. */
static void source_attribute(struct depmap *map, struct dep *dep, const char *key, toml_datum_t v)
{
	char text[64];

	switch (v.type) {
	case TOML_STRING:
		dep_add_source(map, dep, key, " = ", v.u.s, (size_t)v.u.str.len);
		return;
	case TOML_BOOLEAN:
		snprintf(text, sizeof(text), "%s", v.u.boolean ? "true" : "false");
		break;
	case TOML_INT64:
		snprintf(text, sizeof(text), "%" PRId64, v.u.int64);
		break;
	default:
		return;
	}
	dep_add_source(map, dep, key, " = ", text, strlen(text));
}

/* An entry's table: its version, else its source ("package" renames, "features" do not change the version). */
static void entry_table(struct depmap *map, struct dep *dep, toml_datum_t t)
{
	int i;

	for (i = 0; i < t.u.tab.size; i++) {
		if (!strcmp(t.u.tab.key[i], "version")) {
			if (t.u.tab.value[i].type == TOML_STRING)
				dep_set_version(map, dep, t.u.tab.value[i].u.s, (size_t)t.u.tab.value[i].u.str.len);
		} else if (is_source_key(t.u.tab.key[i])) {
			source_attribute(map, dep, t.u.tab.key[i], t.u.tab.value[i]);
		}
	}
}

/* name = "1.2", name = { version = "1.2" }, [table.name] with version = "1.2", Poetry's [{ version = "<2" }, ...]. */
static void entry(struct depmap *map, const char *table, const char *name, int len, toml_datum_t v)
{
	struct dep *dep = dep_entry(map, table, name, (size_t)len);

	if (!dep)
		return;
	if (v.type == TOML_STRING)
		dep_set_version(map, dep, v.u.s, (size_t)v.u.str.len);
	else if (v.type == TOML_TABLE)
		entry_table(map, dep, v);
	else if (v.type == TOML_ARRAY && v.u.arr.size > 0 && v.u.arr.elem[0].type == TOML_TABLE)
		entry_table(map, dep, v.u.arr.elem[0]);
}

/* Every entry of a dependency table named name (but skip, when given). */
static void entries(struct depmap *map, const char *name, toml_datum_t t, const char *skip)
{
	int i;

	for (i = 0; t.type == TOML_TABLE && i < t.u.tab.size && !map->error && !map->malformed; i++)
		if (!skip || strcasecmp(t.u.tab.key[i], skip))
			entry(map, name, t.u.tab.key[i], t.u.tab.len[i], t.u.tab.value[i]);
}

/* ---------------------------------------------------------- Cargo.toml */

static bool is_cargo_table_word(const char *s)
{
	return !strcmp(s, "dependencies") || !strcmp(s, "dev-dependencies") || !strcmp(s, "build-dependencies") ||
	       !strcmp(s, "dev_dependencies") || !strcmp(s, "build_dependencies");
}

/* The dependency tables of t, their names beginning with prefix ("", "target.CFG."). */
static void cargo_tables(struct depmap *map, const char *prefix, toml_datum_t t)
{
	char name[TABLE_NAME_MAX];
	int i;

	for (i = 0; t.type == TOML_TABLE && i < t.u.tab.size; i++)
		if (is_cargo_table_word(t.u.tab.key[i])) {
			snprintf(name, sizeof(name), "%s%s", prefix, t.u.tab.key[i]);
			entries(map, name, t.u.tab.value[i], NULL);
		}
}

static void read_cargo(struct depmap *map, toml_datum_t top)
{
	toml_datum_t targets = toml_get(top, "target");
	char prefix[TABLE_NAME_MAX];
	int i;

	cargo_tables(map, "", top);
	entries(map, "workspace.dependencies", toml_get(toml_get(top, "workspace"), "dependencies"), NULL);
	for (i = 0; targets.type == TOML_TABLE && i < targets.u.tab.size; i++) {
		snprintf(prefix, sizeof(prefix), "target.%s.", targets.u.tab.key[i]);
		cargo_tables(map, prefix, targets.u.tab.value[i]);
	}
}

/* ------------------------------------------------------ pyproject.toml */

/* An array of PEP 508 requirements; what is not a string ({include-group = "x"}) is passed over. */
static void requirements(struct depmap *map, const char *table, toml_datum_t list)
{
	int i;

	for (i = 0; list.type == TOML_ARRAY && i < list.u.arr.size && !map->error && !map->malformed; i++)
		if (list.u.arr.elem[i].type == TOML_STRING)
			depmap_requirement(map, table, list.u.arr.elem[i].u.s, (size_t)list.u.arr.elem[i].u.str.len);
}

/* Each array of a table of them (optional-dependencies' extras, dependency-groups' groups), under one name. */
static void requirement_lists(struct depmap *map, const char *table, toml_datum_t t)
{
	int i;

	for (i = 0; t.type == TOML_TABLE && i < t.u.tab.size; i++)
		requirements(map, table, t.u.tab.value[i]);
}

static void read_poetry(struct depmap *map, toml_datum_t poetry)
{
	toml_datum_t groups = toml_get(poetry, "group");
	char name[TABLE_NAME_MAX];
	int i;

	entries(map, "tool.poetry.dependencies", toml_get(poetry, "dependencies"), "python");
	entries(map, "tool.poetry.dev-dependencies", toml_get(poetry, "dev-dependencies"), "python");
	for (i = 0; groups.type == TOML_TABLE && i < groups.u.tab.size; i++) {
		snprintf(name, sizeof(name), "tool.poetry.group.%s.dependencies", groups.u.tab.key[i]);
		entries(map, name, toml_get(groups.u.tab.value[i], "dependencies"), "python");
	}
}

static void read_pyproject(struct depmap *map, toml_datum_t top)
{
	toml_datum_t project = toml_get(top, "project");

	requirements(map, "project.dependencies", toml_get(project, "dependencies"));
	requirement_lists(map, "project.optional-dependencies", toml_get(project, "optional-dependencies"));
	requirement_lists(map, "dependency-groups", toml_get(top, "dependency-groups"));
	read_poetry(map, toml_get(toml_get(top, "tool"), "poetry"));
}

void depmap_read_toml(struct depmap *map, bool cargo, const char *text, size_t len)
{
	struct toml_result_t *doc;
	int error = deps_toml_parse(&doc, text, len, map->why, sizeof(map->why));

	if (error < 0) {
		map->error = error;
		return;
	}
	if (error > 0) {
		map->malformed = true;
		return;
	}
	if (cargo)
		read_cargo(map, doc->toptab);
	else
		read_pyproject(map, doc->toptab);
	deps_toml_free(doc);
}
