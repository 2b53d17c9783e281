/* The repository, settings, LLM and database of the signal and fix commands. */
#include "workspace.h"
#include "commands.h"
#include "config.h"
#include "repo.h"
#include "status.h"
#include "store.h"

#include <string.h>

int workspace_load(struct workspace *ws)
{
	struct buf path = BUF_INIT;
	int error;

	memset(ws, 0, sizeof(*ws));
	if ((error = repo_open(&ws->repo, NULL)) < 0)
		return error;
	if (!ws->repo->workdir) {
		error = error_set(RL_EUSAGE, "%s is a bare repository: signals and fixes need a working tree",
				  ws->repo->gitdir);
		goto done;
	}
	ws->workdir = ws->repo->workdir;
	if ((error = config_open(&ws->config, ws->repo)) == 0 && (error = llm_config_load(&ws->llm, ws->config)) == 0 &&
	    (error = store_default_path(&path, ws->config)) == 0 && (error = store_open(&ws->store, path.ptr)) == 0)
		error = store_author_load(ws->store, ws->config);
done:
	buf_release(&path);
	if (error < 0)
		workspace_close(ws);
	return error;
}

int workspace_open(struct workspace *ws)
{
	if (workspace_load(ws) < 0) {
		cli_error("%s", error_message());
		return 2;
	}
	return 0;
}

void workspace_close(struct workspace *ws)
{
	store_close(ws->store);
	llm_config_release(&ws->llm);
	config_free(ws->config);
	repo_free(ws->repo);
	memset(ws, 0, sizeof(*ws));
}
