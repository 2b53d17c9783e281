#ifndef REVLINE_DEPS_H
#define REVLINE_DEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

/*
 * Dependency bumps (the dependency seed, Feature 1): which dependencies a
 * change moves from one version to another, how far, and how
 * safe it looks. Pure functions over text: the caller reads the manifests
 * and lock files (both sides of the target); nothing here touches the
 * network, the file system or the repository.
 *
 * Manifests: package.json (npm), go.mod (Go), Cargo.toml (Cargo),
 * requirements*.txt and pyproject.toml (pip), Gemfile and gems.rb
 * (RubyGems), composer.json (Composer). Lock files (lock.h), read for the
 * exact versions they resolve: package-lock.json and npm-shrinkwrap.json
 * (lockfile versions 1, 2 and 3), yarn.lock (classic and berry),
 * pnpm-lock.yaml (v6 and v9), bun.lock (npm); go.sum with go.mod's
 * indirect requirements (Go); Cargo.lock (Cargo); poetry.lock, uv.lock,
 * pdm.lock, Pipfile.lock (pip); Gemfile.lock, gems.locked (RubyGems);
 * composer.lock (Composer). bun.lockb and go.work.sum are known by name
 * but not read (the first is binary, the second has no versions in use).
 * A manifest's change and its lock file's change of the same package are
 * one transition, with the lock file's exact versions; what only the lock
 * file moves is a transition of its own, direct when the manifest names
 * the package, else transitive, with the direct dependency that pulls it
 * in where the lock file records the graph.
 *
 * Manifests come from branches other people wrote, so each side is bounded
 * before it is read: a side larger than DEPS_MANIFEST_MAX bytes, with a NUL
 * byte, with bytes that are not UTF-8, nested (arrays, objects, inline
 * tables) deeper than DEPS_DEPTH_MAX (TOML: 30, the bound of tomlc17, the
 * TOML reader), not valid JSON or TOML, declaring more than DEPS_ENTRIES_MAX
 * dependencies, or a name or version longer than DEPS_SPEC_MAX bytes is
 * named as unreadable (a problem naming the file, the side and the line)
 * and its dependencies are left out; the other manifests are read as usual.
 * Everything is linear in the size of the text.
 */
#define DEPS_MANIFEST_MAX (1024 * 1024)
#define DEPS_DEPTH_MAX 64
#define DEPS_ENTRIES_MAX 5000
#define DEPS_SPEC_MAX 256

/* X(ID, name shown and stored, OSV's ecosystem name) */
#define DEPS_ECOSYSTEMS(X) \
	X(ECO_NPM,      "npm",      "npm") \
	X(ECO_GO,       "go",       "Go") \
	X(ECO_CARGO,    "cargo",    "crates.io") \
	X(ECO_PIP,      "pip",      "PyPI") \
	X(ECO_RUBYGEMS, "rubygems", "RubyGems") \
	X(ECO_COMPOSER, "composer", "Packagist")

enum deps_ecosystem {
#define DEPS_ECO_ENUM(id, name, osv) id,
	DEPS_ECOSYSTEMS(DEPS_ECO_ENUM)
#undef DEPS_ECO_ENUM
	ECO_COUNT
};

const char *deps_ecosystem_name(enum deps_ecosystem eco);
const char *deps_ecosystem_osv(enum deps_ecosystem eco);

/* X(ID, name) */
#define DEPS_BUMPS(X) \
	X(BUMP_PATCH,   "patch") \
	X(BUMP_MINOR,   "minor") \
	X(BUMP_MAJOR,   "major") \
	X(BUMP_ADDED,   "added")    /* a new dependency */ \
	X(BUMP_REMOVED, "removed")  /* a dependency dropped */ \
	X(BUMP_UNKNOWN, "unknown")  /* a version that cannot be read ("latest", a git ref, a path) */

enum deps_bump {
#define DEPS_BUMP_ENUM(id, name) id,
	DEPS_BUMPS(DEPS_BUMP_ENUM)
#undef DEPS_BUMP_ENUM
};

const char *deps_bump_name(enum deps_bump bump);

/* A file's role, from its path alone (any directory): manifest, lock file, or neither. */
enum deps_file_kind { DEPS_FILE_OTHER, DEPS_FILE_MANIFEST, DEPS_FILE_LOCK };
enum deps_file_kind deps_file_kind(const char *path, enum deps_ecosystem *eco);
/* A lock file of any ecosystem (composer.lock too): generated, never sent to the LLM. */
bool deps_is_lock_file(const char *path);

/*
 * How far from -> to goes (the specs as written, read by version.h in
 * eco's terms: largest lower bound, every component): major, minor or
 * patch by the first component that differs, where below 1.0.0 the first
 * non-zero component counts as the major one (0.3 -> 0.4 is major, 0.0.3
 * -> 0.0.4 is major: what caret ranges of npm and Cargo treat as
 * breaking); a change of pre-release alone is patch. BUMP_UNKNOWN when
 * either side cannot be read.
 */
enum deps_bump deps_classify(enum deps_ecosystem eco, const char *from, const char *to);

struct deps_advisory {
	char *id;                       /* "GHSA-...", "CVE-...", "PYSEC-..." */
	char *summary;
	char *severity;                 /* "critical", "high", "medium", "low", or "unknown" */
	bool fixed;                     /* affects the old version and not the new one */
	bool introduced;                /* affects the new version and not the old one (or the package is added) */
};

/* What the bump does to an advisory: "fixed by this bump", "brought by this bump", or "still open". */
const char *deps_advisory_effect(const struct deps_advisory *advisory);

/* X(ID, name): how the project depends on a package. */
#define DEPS_RELATIONS(X) \
	X(RELATION_DIRECT,     "direct")      /* the manifest names it */ \
	X(RELATION_TRANSITIVE, "transitive")  /* only the lock file has it: another package pulls it in */ \
	X(RELATION_UNKNOWN,    "unknown")     /* a lock file's, whose manifest could not be read */

enum deps_relation {
#define DEPS_REL_ENUM(id, name) id,
	DEPS_RELATIONS(DEPS_REL_ENUM)
#undef DEPS_REL_ENUM
};

const char *deps_relation_name(enum deps_relation relation);

struct deps_package {
	enum deps_ecosystem ecosystem;
	char *name;
	char *manifest;                 /* the manifest's path, or the lock file's for what only it moves */
	char *from, *to;                /* the specs as written (a lock file's: the versions); NULL for added / removed */
	/* The versions the specs name, as written ("6.1.4.1", "1.0rc1"; version.h), or NULL: what OSV is asked. */
	char *from_version, *to_version;
	enum deps_bump bump;
	bool breaking;                  /* a major bump, or BREAKING in the release notes */
	bool downgrade;
	enum deps_relation relation;
	/* A transitive package's direct dependency that pulls it in (the lock file's graph), or NULL. */
	char *via;
	/* The lock file's path when its versions are the exact ones from_version and to_version name, or NULL. */
	char *lock;
	/* What a bot's commit message said of it where the lock file says otherwise ("4.17.20 -> 4.17.22"), or NULL. */
	char *claimed;
	/* Filled by the advisory lookup (advisory.h), when it ran. */
	struct deps_advisory *advisories;
	size_t nadvisories;
};

/* Free a package's advisories (the lookup fills them again). */
void deps_advisories_release(struct deps_package *package);

/* X(ID, name) */
#define DEPS_CONFIDENCES(X) \
	X(CONFIDENCE_HIGH,   "high") \
	X(CONFIDENCE_MEDIUM, "medium") \
	X(CONFIDENCE_LOW,    "low")

enum deps_confidence {
#define DEPS_CONF_ENUM(id, name) id,
	DEPS_CONFIDENCES(DEPS_CONF_ENUM)
#undef DEPS_CONF_ENUM
};

const char *deps_confidence_name(enum deps_confidence confidence);

struct deps_analysis {
	struct deps_package *packages;  /* manifest order, then by name */
	size_t npackages;
	unsigned ecosystems;            /* 1 << enum deps_ecosystem, for manifests and lock files seen */
	char *bot;                      /* "dependabot" or "renovate" when the branch or a subject says so */
	bool dependency_only;           /* every changed file is a manifest or lock file (or a bot made it) */
	size_t manifests, locks, files; /* changed files of each kind, and in all */
	enum deps_confidence confidence;
	char *reason;                   /* why: "major version bump in express", "no advisories, patch and minor bumps" */
	/*
	 * Manifests that could not be read, one line each, naming the file,
	 * the side and where ("package.json (new): not valid JSON, line 4,
	 * column 3: ...; its dependencies are left out").
	 */
	char **problems;
	size_t nproblems;
	size_t problems_alloc;
	/*
	 * What a bot's commit message claims that no manifest or lock file of
	 * the change shows, one line each ("the commit message says lodash
	 * 4.17.20 -> 4.17.21; no lock file of the change moves lodash"): the
	 * lock file is the truth, and a message adds no package.
	 */
	char **claims;
	size_t nclaims;
	size_t claims_alloc;
};

/* One changed file, as the caller read it. */
struct deps_file {
	const char *path;
	const char *old_text;           /* NULL when the file is new (or unreadable) */
	size_t old_len;
	const char *new_text;           /* NULL when deleted */
	size_t new_len;
	/*
	 * A lock file's manifest beside it (lock_manifest_name: package.json
	 * beside yarn.lock), on each side, to tell direct packages from
	 * transitive ones where the lock file does not record it; NULL when
	 * there is none or it was not read.
	 */
	const char *manifest_old, *manifest_new;
	size_t manifest_old_len, manifest_new_len;
};

/*
 * The analysis of a change: every changed path (manifests with both their
 * texts; other files' texts may be NULL: only their paths count), the
 * branch name (may be NULL) and the commit messages, subject and body,
 * separated by blank lines (may be NULL). The manifests and lock files are
 * the truth: a bot's "Bump X from A to B" that they contradict is noted
 * on the package (claimed), and one that none of them shows is among the
 * claims, never a package. An analysis with no packages and no bot is
 * still filled (the counts), and callers show nothing for it. Never fails
 * but for memory.
 */
int deps_analyze(struct deps_analysis *out, const struct deps_file *files, size_t nfiles,
		 const char *branch, const char *messages);
void deps_analysis_release(struct deps_analysis *analysis);
/* Name a manifest side that could not be read (side "old" or "new") among the analysis's problems. */
int deps_problem_add(struct deps_analysis *out, const char *path, const char *side, const char *why);

/*
 * The seed's merge confidence, again (after the advisories are in): low
 * for a critical or high advisory still open or fixed, medium for a major
 * bump or any other advisory, else high; reason says which package.
 */
int deps_confidence_compute(struct deps_analysis *analysis);

/*
 * The dependency section of the map prompt (markdown: the table, the
 * advisories, what to focus on, not to review lock files line by line,
 * the merge confidence with its reason), or "" when there are no packages.
 */
int deps_prompt_section(struct buf *out, const struct deps_analysis *analysis);

#endif
