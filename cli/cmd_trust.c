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

	if (command && (!strcmp(command, "trust") || !strcmp(command, "doctor") || !strcmp(command, "help")))
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

int cmd_trust(int argc, char **argv)
{
	struct opt_parser p = { argc, argv, 1, false, command_options("trust") };
	const struct config_revline *file;
	struct config *config = NULL;
	struct repo *repo = NULL;
	bool want_show = false, want_revoke = false;
	const char *value;
	int id, rc;

	while ((id = opt_next(&p, &value)) != OPT_END) {
		if (id < 0)
			return 2;
		if (id == OPT_HELP)
			return help_show("trust");
		if (id == OPT_TRUST_SHOW)
			want_show = true;
		else if (id == OPT_TRUST_REVOKE)
			want_revoke = true;
		else {
			cli_error("unexpected argument '%s' (see 'revline help trust')", value ? value : "");
			return 2;
		}
	}
	if (want_show && want_revoke) {
		cli_error("--show and --revoke do not go together");
		return 2;
	}
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
