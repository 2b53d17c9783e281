/* revline trust [--show | --revoke]: whether this repository's .revline may do more than the harmless. */
#include "commands.h"
#include "config.h"
#include "repo.h"
#include "status.h"
#include "term.h"
#include "trust.h"

#include <stdbool.h>
#include <string.h>

static bool note_said;

void trust_note(const struct config *config)
{
	struct buf note = BUF_INIT;

	if (!note_said && config_revline_note(&note, config) == 0 && note.len) {
		note_said = true;
		term_printf(stderr, "revline: %s\n", note.ptr);
	}
	buf_release(&note);
}

void trust_note_before(const char *command)
{
	struct repo *repo = NULL;
	struct config *config = NULL;

	if (command && (!strcmp(command, "trust") || !strcmp(command, "doctor") || !strcmp(command, "help") ||
			!strcmp(command, "completion")))
		return;
	/* A repository or a config that cannot be read is the command's to report. */
	if (repo_open(&repo, NULL) == 0 && config_open(&config, repo) == 0)
		trust_note(config);
	error_clear();
	config_free(config);
	repo_free(repo);
}

static const char *state_text(enum trust_state trust)
{
	switch (trust) {
	case TRUST_TRUSTED:
		return "trusted";
	case TRUST_CHANGED:
		return "not trusted: it changed since you trusted it";
	case TRUST_NONE:
		break;
	}
	return "not trusted";
}

static int show(const struct config_revline *file)
{
	term_printf(stdout, "%s: %s\n", file->path, state_text(file->trust));
	term_printf(stdout, "sha256:   %s\n", file->hash);
	if (!file->sensitive)
		printf("settings: none that need trust\n");
	else if (file->trust == TRUST_TRUSTED)
		term_printf(stdout, "settings: %s count\n", file->sensitive);
	else
		term_printf(stdout, "settings: %s ignored until you run 'revline trust'\n", file->sensitive);
	return file->trust == TRUST_TRUSTED ? 0 : 1;
}

static int revoke(const struct repo *repo)
{
	struct buf path = BUF_INIT;
	bool had = false;
	int rc = 0;

	if (config_revline_path(&path, repo) < 0 || trust_revoke(&had, path.ptr) < 0) {
		cli_error("%s", error_message());
		rc = 2;
	} else {
		term_printf(stdout, "%s: %s\n", path.ptr, had ? "no longer trusted" : "was not trusted");
	}
	buf_release(&path);
	return rc;
}

static int trust(const struct config_revline *file)
{
	if (trust_record(file->path, file->hash) < 0) {
		cli_error("%s", error_message());
		return 2;
	}
	term_printf(stdout, "%s: trusted as it is now (sha256 %.12s); it is untrusted again when it "
		    "changes\n", file->path, file->hash);
	if (file->sensitive)
		term_printf(stdout, "settings: %s now count%s\n", file->sensitive, strchr(file->sensitive, ',') ? "" : "s");
	return 0;
}

const struct command_help trust_help = {
	"trust",
	"revline trust [--show | --revoke]",
	"let this repository's .revline set what sends data, runs or names a path",
	"A .revline comes with the repository, so whoever wrote the branch wrote it.\n"
	"Until you trust it, its settings that send data, run commands or name paths\n"
	"(revline.baseUrl, provider, model, mapModel, reduceModel, apiKeyCommand,\n"
	"lint.NAME, db, osvUrl, advisories, allowPartial, ignore, a theme given as a\n"
	"path) are ignored, and\n"
	"said so once on stderr; the rest count. 'revline trust' records the SHA-256\n"
	"of the file as it is now with its path in $XDG_CONFIG_HOME/revline/trust/;\n"
	"when the file changes it is untrusted again. --show says the state, --revoke\n"
	"forgets it. Exit status: 0 when done (--show: when trusted), 1 when there is\n"
	"no .revline to trust (--show: when not trusted), 2 for usage errors.\n",
};

int cmd_trust(int argc, char **argv)
{
	const struct config_revline *file;
	struct config *config = NULL;
	struct repo *repo = NULL;
	bool want_show = false, want_revoke = false;
	const struct option options[] = {
		OPT_BOOL_ONE_OF(1, 0, "show", &want_show,
			 "say whether the .revline is trusted and what it sets that needs trust"),
		OPT_BOOL_ONE_OF(1, 0, "revoke", &want_revoke,
			 "stop trusting the .revline: its sensitive settings no longer count"),
		OPT_END(),
	};
	int rc;

	if ((rc = parse_options(argc, argv, options, &trust_help)) < 0)
		return parse_options_exit(rc);
	if (!parse_options_at_most(rc, argv, 0, &trust_help))
		return 2;
	if (repo_open(&repo, NULL) < 0) {
		cli_error("%s", error_message());
		return 2;
	}
	/* Revoking needs no readable file: the one trusted may be gone or broken now. */
	if (want_revoke) {
		rc = revoke(repo);
		goto done;
	}
	if (config_open(&config, repo) < 0) {
		cli_error("%s", error_message());
		rc = 2;
		goto done;
	}
	if (!(file = config_revline(config))) {
		term_printf(stderr, "revline: no .revline in %s: nothing to trust\n",
			    repo->workdir ? repo->workdir : repo->gitdir);
		rc = 1;
	} else if (file->unread) {
		term_printf(stderr, "revline: %s\n", file->unread);
		rc = 1;
	} else {
		rc = want_show ? show(file) : trust(file);
	}
done:
	config_free(config);
	repo_free(repo);
	return rc;
}
