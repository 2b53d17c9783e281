/* The repository, settings, LLM and database of the signal and fix commands. */
#include "workspace.h"
#include "commands.h"
#include "config.h"
#include "repo.h"
#include "status.h"
#include "store.h"

#include <string.h>

int workspace_open(struct workspace *ws)
{
	struct buf path = BUF_INIT;
	int rc = 0;

	memset(ws, 0, sizeof(*ws));
	if (repo_open(&ws->repo, NULL) < 0) {
		cli_error("%s", error_message());
		return 2;
	}
	if (!ws->repo->workdir) {
		cli_error("%s is a bare repository: signals and fixes need a working tree", ws->repo->gitdir);
		return 2;
	}
	ws->workdir = ws->repo->workdir;
	if (config_open(&ws->config, ws->repo) < 0 || llm_config_load(&ws->llm, ws->config) < 0 ||
	    store_default_path(&path, ws->config) < 0 || store_open(&ws->store, path.ptr) < 0) {
		cli_error("%s", error_message());
		rc = 2;
	}
	buf_release(&path);
	return rc;
}

void workspace_close(struct workspace *ws)
{
	store_close(ws->store);
	llm_config_release(&ws->llm);
	config_free(ws->config);
	repo_free(ws->repo);
	memset(ws, 0, sizeof(*ws));
}
