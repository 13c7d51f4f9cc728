// Package background starts a verb's command in the background for a Go
// program that embeds a verbsurface surface, the Go form of a front's
// `background: true`: the op answers at once with a run id, and the job
// verbs (job.status, job.list, job.output, job.wait, job.kill) follow
// the run.
//
// [Open] opens the runs' store in a directory of the embedder's. Each run
// is supervised by a process of its own, detached from the server, that
// records the run's end, so a server that exits or crashes loses nothing:
// [Options.Supervisor] is the embedder's own binary and a hidden
// subcommand that calls [Supervise] with the two arguments it is given.
// [Runs.Verb] makes the [verbsurface.Runner] of a spawn verb from its
// foreground [dispatch.Runner]; [Runs.RegisterJobVerbs] registers the job
// verbs, whose commands the surface's tree gets from [Runs.TreeSource];
// [Runs.LimitLive] caps the live runs, in all and per verified subject.
//
// The package works on Unix (a run leads a process group of its own);
// elsewhere it is empty.
package background
