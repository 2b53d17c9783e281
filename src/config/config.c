#include "config.h"
#include "config_text.h"
#include "status.h"
#include "utf8.h"

#include <git2.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

struct config {
	git_config *git;        /* the user's own: system, global, XDG, .git/config */
	git_config *revline;    /* the working tree's .revline, NULL when there is none */
	char *local;            /* the repository's config file (.git/config), NULL when none */
	struct config_revline file;
	struct strings unknown; /* what config_unknown says */
};

static const struct key_info {
	const char *key;
	const char *env;
	enum config_class class;
} keys[] = {
#define CONFIG_ENTRY(key, env, class) { key, env, class },
	CONFIG_KEYS(CONFIG_ENTRY)
#undef CONFIG_ENTRY
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* A key's parts: section, subsection (dots and all; empty when none), name. */
struct key_parts {
	const char *section, *sub, *name;
	size_t section_len, sub_len;
};

static bool key_split(struct key_parts *k, const char *key)
{
	const char *first = strchr(key, '.'), *last = strrchr(key, '.');

	if (!first || first == key || !last[1])
		return false;
	k->section = key;
	k->section_len = (size_t)(first - key);
	k->sub = first + 1;
	k->sub_len = first == last ? 0 : (size_t)(last - first - 1);
	k->name = last + 1;
	return true;
}

/*
 * Whether a key is the table's: the section and the name are not
 * case-sensitive in git config, the subsection is ([revline "Lint"] is not
 * [revline "lint"]); a name "*" stands for every name (revline.lint.NAME).
 */
static bool key_matches(const char *pattern, const char *key)
{
	struct key_parts p, k;

	if (!key_split(&p, pattern) || !key_split(&k, key))
		return false;
	return p.section_len == k.section_len && !strncasecmp(p.section, k.section, p.section_len) &&
	       p.sub_len == k.sub_len && !strncmp(p.sub, k.sub, p.sub_len) &&
	       (!strcmp(p.name, "*") || !strcasecmp(p.name, k.name));
}

static const struct key_info *key_find(const char *key)
{
	size_t i;

	for (i = 0; i < NKEYS; i++)
		if (key_matches(keys[i].key, key))
			return &keys[i];
	return NULL;
}

/* Whether a value counts from any .revline, trusted or not. */
static bool harmless(const struct key_info *info, const char *value)
{
	switch (info->class) {
	case CONFIG_HARMLESS:
		return true;
	case CONFIG_NAME:
		return !value || !strchr(value, '/');
	case CONFIG_SENSITIVE:
	case CONFIG_IDENTITY:
		break;
	}
	return false;
}

/* Whether a value the .revline sets counts (the user's own config always does). */
static bool revline_counts(const struct config *config, const struct key_info *info, const char *value)
{
	if (info->class == CONFIG_IDENTITY)
		return false;
	return config->file.trust == TRUST_TRUSTED || harmless(info, value);
}

static int say_unread(struct config_revline *file, const char *fmt, const char *what)
{
	struct buf text = BUF_INIT;
	int error = buf_printf(&text, fmt, file->path, what);

	file->unread = buf_detach(&text);
	return error;
}

/*
 * Whether the text has an [include] or [includeIf] section. libgit2 would
 * follow it to any file (a FIFO, /dev/zero) and what it pulls in is not
 * covered by the trusted hash. A line that only looks like one (inside a
 * continued value) errs on the safe side.
 */
static bool has_include(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *q = p;

		if (!eol)
			eol = end;
		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		if (q < eol && *q == '[') {
			for (q++; q < eol && (*q == ' ' || *q == '\t'); q++)
				;
			if ((size_t)(eol - q) >= 7 && !strncasecmp(q, "include", 7))
				return true;
		}
		p = eol + 1;
	}
	return false;
}

/* The working tree resolved, the file itself not followed (a link is refused, not resolved). */
int config_revline_path(struct buf *out, const struct repo *repo)
{
	char real[PATH_MAX];

	buf_clear(out);
	if (!repo || !repo->workdir)
		return error_set(RL_ENOTFOUND, "%s is a bare repository: it has no .revline",
				 repo ? repo->gitdir : "this");
	if (realpath(repo->workdir, real))
		return buf_printf(out, "%s%s.revline", real, real[strlen(real) - 1] == '/' ? "" : "/");
	return buf_printf(out, "%s.revline", repo->workdir);
}

/*
 * Read the .revline (only a regular file, never through a link, at most
 * CONFIG_REVLINE_MAX bytes), hash it and look up whether it is trusted.
 * *read says whether libgit2 should parse it.
 */
static int revline_inspect(struct config_revline *file, bool *read, const struct repo *repo)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	struct stat st;
	int error;

	*read = false;
	if ((error = config_revline_path(&path, repo)) < 0)
		goto done;
	if (lstat(path.ptr, &st) < 0 || S_ISDIR(st.st_mode))
		goto done;      /* none, or the .revline/ folder of rules */
	file->path = buf_detach(&path);
	if (!file->path) {
		error = error_nomem();
		goto done;
	}
	if (S_ISLNK(st.st_mode)) {
		error = say_unread(file, "%s is %s, which revline does not follow: not read", "a symbolic link");
		goto done;
	}
	if ((error = buf_read_regular(&text, file->path, "", CONFIG_REVLINE_MAX)) < 0) {
		error = error == RL_ENOMEM ? error : say_unread(file, "%s %s", error_message());
		goto done;
	}
	if (has_include(text.ptr ? text.ptr : "", text.len)) {
		error = say_unread(file, "%s %s", "has an [include] section, which revline does not "
				   "follow: not read (copy the settings into it)");
		goto done;
	}
	/* No place for the records (no HOME) trusts nothing; the harmless keys still count. */
	if (trust_hash(file->hash, text.ptr ? text.ptr : "", text.len) < 0 ||
	    trust_check(&file->trust, file->path, file->hash) < 0) {
		file->trust = TRUST_NONE;
		error_clear();
	}
	*read = true;
done:
	buf_release(&text);
	buf_release(&path);
	return error;
}

/* One key of the .revline into the list of those that count only while it is trusted. */
static int list_sensitive(const git_config_entry *entry, void *payload)
{
	struct config_revline *file = payload;
	const struct key_info *info = key_find(entry->name);
	const char *name, *seen;
	struct buf list = BUF_INIT;
	size_t n;

	/* Keys revline does not read have no effect, and other sections are not read from here. */
	if (strncasecmp(entry->name, "revline.", 8) || !info || harmless(info, entry->value))
		return 0;
	name = strcmp(info->key + strlen(info->key) - 2, ".*") ? info->key : entry->name;
	n = strlen(name);
	for (seen = file->sensitive; seen && (seen = strstr(seen, name)); seen += n)
		if ((seen == file->sensitive || seen[-1] == ' ') && (!seen[n] || seen[n] == ','))
			return 0;
	if (buf_printf(&list, "%s%s%s", file->sensitive ? file->sensitive : "",
		       file->sensitive ? ", " : "", name) < 0)
		return -1;
	free(file->sensitive);
	file->sensitive = buf_detach(&list);
	return 0;
}

/*
 * The .revline libgit2 would not read: its message, or, for a name with a
 * dot ("lint.flake8" under [revline]), the section that makes it right.
 */
static int revline_refused(const char *path)
{
	const git_error *e = git_error_last();
	char why[512], section[128], name[128], shown[160], fixed[300];
	struct buf text = BUF_INIT;
	const char *dot;
	size_t line = 0, sub;

	snprintf(why, sizeof(why), "%s", e && e->message ? e->message : "bad config file");
	if (buf_read_regular(&text, path, "", CONFIG_REVLINE_MAX) == 0)
		line = config_text_dotted(section, sizeof(section), name, sizeof(name), text.ptr ? text.ptr : "",
					  text.len);
	error_clear();
	buf_release(&text);
	if (!line)
		return error_set(RL_ECONFIG, "%s: %s", path, why);
	dot = strrchr(name, '.');
	sub = strcspn(section, ".");
	if (section[sub])
		snprintf(shown, sizeof(shown), "[%.*s \"%s\"]", (int)sub, section, section + sub + 1);
	else
		snprintf(shown, sizeof(shown), "[%s]", section);
	snprintf(fixed, sizeof(fixed), "[%.*s \"%s%s%.*s\"]", (int)sub, section, section[sub] ? section + sub + 1 : "",
		 section[sub] ? "." : "", (int)(dot - name), name);
	return error_set(RL_ECONFIG, "%s:%zu: '%s' under %s: a name cannot have a dot; write %s and under it "
			 "%s = ...", path, line, name, shown, fixed, dot + 1);
}

static int add_revline_file(struct config *config, struct repo *repo)
{
	bool read;
	int error;

	if (!repo || !repo->workdir)
		return 0;
	if ((error = revline_inspect(&config->file, &read, repo)) < 0 || !read)
		return error;
	if (git_config_new(&config->revline) < 0 ||
	    git_config_add_file_ondisk(config->revline, config->file.path, GIT_CONFIG_LEVEL_APP, NULL, 0) < 0)
		return revline_refused(config->file.path);
	/*
	 * Every key, the section tested in list_sensitive: libgit2 1.5's
	 * foreach_match leaks PCRE2 match data for each key its pattern does
	 * not match (a .revline with any other section).
	 */
	if (git_config_foreach(config->revline, list_sensitive, &config->file) < 0)
		return error_nomem();
	return 0;
}

static int add_repo_config(struct config *config, struct repo *repo)
{
	git_buf path = { 0 };
	struct stat st;
	int rc = 0;

	if (git_repository_item_path(&path, repo->git, GIT_REPOSITORY_ITEM_CONFIG) == 0 &&
	    stat(path.ptr, &st) == 0 &&
	    (rc = git_config_add_file_ondisk(config->git, path.ptr, GIT_CONFIG_LEVEL_LOCAL, repo->git, 0)) == 0 &&
	    !(config->local = strdup(path.ptr)))
		rc = error_nomem();
	git_buf_dispose(&path);
	return rc;
}

/* --- keys set that revline does not know ------------------------------------ */

/* A git config file is read for a key's line up to this size. */
#define CONFIG_TEXT_MAX (1024 * 1024)

/* The file of a level, as libgit2 found it for git_config_open_default. */
static int level_path(struct buf *out, const struct config *config, git_config_level_t level)
{
	git_buf found = { 0 };
	int rc = -1, error;

	buf_clear(out);
	switch (level) {
	case GIT_CONFIG_LEVEL_APP:
		return config->file.path ? buf_puts(out, config->file.path) : RL_ENOTFOUND;
	case GIT_CONFIG_LEVEL_LOCAL:
		return config->local ? buf_puts(out, config->local) : RL_ENOTFOUND;
	case GIT_CONFIG_LEVEL_GLOBAL: rc = git_config_find_global(&found); break;
	case GIT_CONFIG_LEVEL_XDG: rc = git_config_find_xdg(&found); break;
	case GIT_CONFIG_LEVEL_SYSTEM: rc = git_config_find_system(&found); break;
	case GIT_CONFIG_LEVEL_PROGRAMDATA: rc = git_config_find_programdata(&found); break;
	default: break;
	}
	error = rc == 0 && found.ptr ? buf_puts(out, found.ptr) : RL_ENOTFOUND;
	git_buf_dispose(&found);
	return error;
}

/* Where an entry is set: "PATH:LINE", "PATH", or "a file included from PATH". */
static int entry_where(struct buf *out, const struct config *config, const git_config_entry *entry)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	size_t line = 0;
	int error;

	if (level_path(&path, config, entry->level) < 0) {
		error = buf_puts(out, "git config");
	} else if (entry->include_depth) {
		error = buf_printf(out, "a file included from %s", path.ptr);
	} else {
		if (buf_read_regular(&text, path.ptr, "", CONFIG_TEXT_MAX) == 0)
			line = config_text_line(text.ptr ? text.ptr : "", text.len, entry->name);
		error = line ? buf_printf(out, "%s:%zu", path.ptr, line) : buf_puts(out, path.ptr);
	}
	error_clear();
	buf_release(&text);
	buf_release(&path);
	return error < 0 ? error_nomem() : 0;
}

/*
 * "did you mean revline.concurrency?" for a key of a known section that is
 * not in the table: the table's keys, a "*" one with the name typed
 * (revline.Lint.ruff: revline.lint.ruff), compared after the section. out
 * is left empty when none is close.
 */
static void key_hint(char *out, size_t size, const char *key)
{
	char candidates[NKEYS][64];
	struct key_parts k, p;
	struct text_guess guess;
	const char *rest;
	size_t i;

	*out = '\0';
	if (!key_split(&k, key))
		return;
	rest = key + k.section_len + 1;
	text_guess_init(&guess, rest, strlen(rest));
	for (i = 0; i < NKEYS; i++) {
		if (!key_split(&p, keys[i].key) || p.section_len != k.section_len ||
		    strncasecmp(p.section, k.section, k.section_len))
			continue;
		if (strcmp(p.name, "*")) {
			snprintf(candidates[i], sizeof(candidates[i]), "%s", p.sub);
		} else if (k.sub_len) {
			snprintf(candidates[i], sizeof(candidates[i]), "%.*s.%s", (int)p.sub_len, p.sub, k.name);
		} else if (strlen(k.name) == p.sub_len && !strncasecmp(k.name, p.sub, p.sub_len)) {
			/* revline.lint alone: the section of its keys */
			snprintf(out, size, "did you mean %.*s.NAME, a key of [%.*s \"%.*s\"]?",
				 (int)(strlen(keys[i].key) - 2), keys[i].key, (int)p.section_len, p.section,
				 (int)p.sub_len, p.sub);
			return;
		} else {
			continue;
		}
		text_guess_try(&guess, candidates[i], i);
	}
	if (text_guess_result(&guess))
		snprintf(out, size, "did you mean %.*s.%s?", (int)k.section_len, keys[guess.index].key,
			 text_guess_result(&guess));
}

struct unknown_walk {
	struct config *config;
	bool revline_file;      /* the entries are the .revline's */
};

/* One entry: nothing when revline knows it (or, outside a .revline, when it is not revline's). */
static int unknown_entry(const git_config_entry *entry, void *payload)
{
	struct unknown_walk *w = payload;
	bool ours = !strncasecmp(entry->name, "revline.", 8);
	struct buf where = BUF_INIT, msg = BUF_INIT, as_ours = BUF_INIT;
	char hint[192] = "";
	int error;

	if (ours ? key_find(entry->name) != NULL : !w->revline_file)
		return 0;
	if (ours)
		key_hint(hint, sizeof(hint), entry->name);
	else if (buf_printf(&as_ours, "revline.%s", entry->name) == 0 && key_find(as_ours.ptr))
		snprintf(hint, sizeof(hint), "did you mean %s?", as_ours.ptr);
	if ((error = entry_where(&where, w->config, entry)) == 0)
		error = buf_printf(&msg, "%s: %s%s%s (set in %s)", entry->name, ours ? "unknown setting" :
				   "not read: a .revline sets only revline's keys", *hint ? "; " : "", hint, where.ptr);
	if (error == 0)
		error = strings_add_unique(&w->config->unknown, msg.ptr);
	buf_release(&as_ours);
	buf_release(&msg);
	buf_release(&where);
	return error < 0 ? -1 : 0;
}

/* Every key set, the user's and the .revline's (not foreach_match: see add_revline_file). */
static int unknown_collect(struct config *config)
{
	struct unknown_walk w = { config, false };

	if (git_config_foreach(config->git, unknown_entry, &w) < 0)
		return error_nomem();
	w.revline_file = true;
	if (config->revline && git_config_foreach(config->revline, unknown_entry, &w) < 0)
		return error_nomem();
	return 0;
}

const struct strings *config_unknown(const struct config *config)
{
	static const struct strings none = STRINGS_INIT;

	return config ? &config->unknown : &none;
}

int config_where(struct buf *out, struct config *config, const char *key)
{
	const struct key_info *info = key_find(key);
	git_config_entry *entry = NULL;
	int error;

	buf_clear(out);
	if (!config)
		return RL_ENOTFOUND;
	/* The entry config_get takes: the .revline's when it counts, else the user's that wins. */
	if (config->revline && git_config_get_entry(&entry, config->revline, key) == 0 && entry &&
	    info && !revline_counts(config, info, entry->value)) {
		git_config_entry_free(entry);
		entry = NULL;
	}
	if (!entry && (git_config_get_entry(&entry, config->git, key) < 0 || !entry)) {
		git_error_clear();
		return RL_ENOTFOUND;
	}
	error = entry_where(out, config, entry);
	git_config_entry_free(entry);
	return error;
}

struct keys_under {
	const char *prefix;
	struct strings *names;
};

static int keys_under_entry(const git_config_entry *entry, void *payload)
{
	struct keys_under *k = payload;

	if (strncmp(entry->name, k->prefix, strlen(k->prefix)))
		return 0;
	return strings_add_unique(k->names, entry->name) < 0 ? -1 : 0;
}

int config_keys_under(struct strings *out, struct config *config, const char *prefix)
{
	struct keys_under k = { prefix, out };

	if (!config)
		return 0;
	if ((config->revline && git_config_foreach(config->revline, keys_under_entry, &k) < 0) ||
	    git_config_foreach(config->git, keys_under_entry, &k) < 0)
		return error_nomem();
	return 0;
}

int config_open(struct config **out, struct repo *repo)
{
	struct config *config = calloc(1, sizeof(*config));
	int error = 0, rc;

	*out = NULL;
	if (!config)
		return error_nomem();
	git_libgit2_init();
	/* A config of our own, so that .revline never changes how libgit2 treats the repository. */
	rc = git_config_open_default(&config->git);
	if (rc == 0 && repo)
		rc = add_repo_config(config, repo);
	if (rc == RL_ENOMEM) {
		error = rc;
		goto done;
	}
	if (rc < 0) {
		const git_error *e = git_error_last();

		error = error_set(RL_ECONFIG, "cannot read git config: %s", e && e->message ? e->message : "");
		goto done;
	}
	if ((error = add_revline_file(config, repo)) < 0 || (error = unknown_collect(config)) < 0)
		goto done;
	*out = config;
	config = NULL;
done:
	config_free(config);
	return error;
}

void config_free(struct config *config)
{
	if (!config)
		return;
	git_config_free(config->git);
	git_config_free(config->revline);
	free(config->file.path);
	free(config->file.sensitive);
	free(config->file.unread);
	free(config->local);
	strings_free(&config->unknown);
	free(config);
	git_libgit2_shutdown();
}

const struct config_revline *config_revline(const struct config *config)
{
	return config && config->file.path ? &config->file : NULL;
}

static int copy_out(char **out, const char *value)
{
	*out = strdup(value ? value : "");
	return *out ? 0 : error_nomem();
}

/* The value the .revline gives, when it counts; RL_ENOTFOUND otherwise. */
static int revline_get(char **out, struct config *config, const struct key_info *info, const char *key)
{
	git_config_entry *entry = NULL;
	int error = RL_ENOTFOUND;

	if (!config->revline || git_config_get_entry(&entry, config->revline, key) < 0 || !entry)
		return RL_ENOTFOUND;
	if (revline_counts(config, info, entry->value))
		error = copy_out(out, entry->value);
	git_config_entry_free(entry);
	return error;
}

int config_revline_note(struct buf *out, const struct config *config)
{
	const struct config_revline *file = config_revline(config);

	const struct strings *unknown = config_unknown(config);
	int error = 0;

	buf_clear(out);
	if (!file)
		;
	else if (file->unread)
		error = buf_puts(out, file->unread);
	/* The command first: a narrow status bar cuts the end. */
	else if (file->trust == TRUST_CHANGED && file->sensitive)
		error = buf_printf(out, ".revline changed since you trusted it (revline trust to trust it "
				   "again): ignoring %s", file->sensitive);
	else if (file->trust != TRUST_TRUSTED && file->sensitive)
		error = buf_printf(out, ".revline is not trusted (revline trust to trust it): ignoring %s",
				   file->sensitive);
	if (error == 0 && unknown->count)
		error = buf_printf(out, "%s%s", out->len ? "; " : "", unknown->items[0]);
	if (error == 0 && unknown->count > 1)
		error = buf_printf(out, "; %zu more unknown (revline doctor lists them)", unknown->count - 1);
	return error;
}

int config_get(char **out, struct config *config, const char *key)
{
	const struct key_info *info = key_find(key);
	git_buf value = { 0 };
	const char *env;
	int error;

	*out = NULL;
	if (!info)
		return error_set(RL_EUSAGE, "%s is not a setting revline knows (classify it in "
				 "CONFIG_KEYS, src/config.h)", key);
	if (info->env && (env = getenv(info->env)) && *env)
		return copy_out(out, env);
	if (!config)
		return RL_ENOTFOUND;
	if ((error = revline_get(out, config, info, key)) != RL_ENOTFOUND)
		return error;
	if (git_config_get_string_buf(&value, config->git, key) < 0)
		return RL_ENOTFOUND;
	error = copy_out(out, value.ptr);
	git_buf_dispose(&value);
	return error;
}

/* Where a key is set, for a message: "git config K, or E in the environment". */
static const char *env_of(const char *key)
{
	const struct key_info *info = key_find(key);

	return info && info->env ? info->env : NULL;
}

static int get_number(double *out, struct config *config, const char *key, double min, double max,
		      bool integer)
{
	char *value = NULL, *end;
	const char *env = env_of(key);
	int error;

	*out = 0;
	if ((error = config_get(&value, config, key)) < 0)
		return error;
	*out = strtod(value, &end);
	if (end == value || *end || !(*out >= min && *out <= max) || (integer && *out != (long)*out))
		error = error_set(RL_ECONFIG, "%s is '%s': it takes %s from %g to %g "
				  "(git config %s%s%s%s)", key, value,
				  integer ? "a whole number" : "a number", min, max, key,
				  env ? ", or " : "", env ? env : "", env ? " in the environment" : "");
	free(value);
	return error;
}

int config_get_number(double *out, struct config *config, const char *key, double min, double max)
{
	return get_number(out, config, key, min, max, false);
}

int config_get_integer(long *out, struct config *config, const char *key, long min, long max)
{
	double d;
	int error = get_number(&d, config, key, (double)min, (double)max, true);

	*out = error < 0 ? 0 : (long)d;
	return error;
}

int config_get_bool(bool *out, struct config *config, const char *key)
{
	static const char *const yes[] = { "true", "yes", "on", "1" }, *const no[] = { "false", "no", "off", "0" };
	char *value = NULL;
	size_t i;
	int error;

	*out = false;
	if ((error = config_get(&value, config, key)) < 0)
		return error;
	error = RL_ECONFIG;
	for (i = 0; i < 4 && error; i++) {
		if (!strcasecmp(value, yes[i]))
			*out = true, error = 0;
		else if (!strcasecmp(value, no[i]))
			error = 0;
	}
	if (error)
		error = error_set(RL_ECONFIG, "%s is '%s': it takes true or false (git config %s)",
				  key, value, key);
	free(value);
	return error;
}
