//go:build unix

// Command fakecli is a deliberately misbehaving CLI for the dispatch tests:
// the first argument selects what it does (see the switch in main). The
// tests build it once per run with `go build`, so every case exercises a real
// process, real pipes and a real process group.
//
// Modes that start other processes pass a pid file to the child, which
// writes its pid there (atomically) once its signal handling is set up, so a
// test can wait for it, then check that the process was really there and is
// really gone (or, for detached work, really still alive).
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "fakecli: no mode")
		os.Exit(64)
	}
	mode, args := os.Args[1], os.Args[2:]
	switch mode {
	case "tiny": // the cheapest conforming command, for benchmarks
		os.Stdout.WriteString(`{"result_version":1,"ok":true,"data":{}}` + "\n")
	case "ok": // echo what the command was given
		wd, _ := os.Getwd()
		env := os.Environ()
		slices.Sort(env)
		st, err := procid.ReadStat(os.Getpid())
		if err != nil {
			panic(err)
		}
		ok(map[string]any{"args": args, "cwd": wd, "env": env, "pid": st.PID, "pgid": st.PGID, "sid": st.SID})
	case "print": // print <stdout text> [exit code]
		os.Stdout.WriteString(args[0])
		if len(args) > 1 {
			os.Exit(atoi(args[1]))
		}
	case "exit": // exit <code>, printing nothing
		os.Exit(atoi(args[0]))
	case "stderr": // stderr <text> <exit code>
		os.Stderr.WriteString(args[0])
		os.Exit(atoi(args[1]))
	case "crash": // die of SIGKILL sent to itself
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
	case "flood-stdout": // flood-stdout <bytes>, then exit 0
		flood(os.Stdout, atoi64(args[0]))
	case "flood-stderr": // flood-stderr <bytes>, then a valid ok result
		flood(os.Stderr, atoi64(args[0]))
		ok("after flood")
	case "flood-stderr-until-term": // flood stderr until SIGTERM, then say goodbye
		var stop atomic.Bool
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM)
		go func() { <-c; stop.Store(true) }()
		line := []byte(strings.Repeat("noise ", 15) + "\n")
		for !stop.Load() {
			os.Stderr.Write(line)
		}
		os.Stderr.WriteString("goodbye: stopped by SIGTERM\n")
	case "stdout-bytes": // an ok result of exactly <n> bytes
		n := atoi(args[0])
		frame := `{"result_version":1,"ok":true,"data":""}`
		os.Stdout.WriteString(frame[:len(frame)-2] + strings.Repeat("x", n-len(frame)) + `"}`)
	case "stderr-bytes": // <n> bytes of stderr, then an ok result
		os.Stderr.WriteString(strings.Repeat("e", atoi(args[0])))
		ok("ok")
	case "hang": // hang [pidfile]
		writePidfile(args)
		hang()
	case "hang-ignore-term": // hang-ignore-term [pidfile]
		signal.Ignore(syscall.SIGTERM)
		writePidfile(args) // only now is SIGTERM ignored: tests may start signalling
		hang()
	case "grandchild-hang": // grandchild-hang <pidfile>: start a same-group child that hangs, then hang
		startChild(args[0], false, false, "hang-ignore-term")
		hang()
	case "hang-note-term": // hang-note-term <pidfile>: hang; on SIGTERM create <pidfile>.term and exit
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM)
		writePidfile(args)
		<-c
		os.WriteFile(args[0]+".term", nil, 0o644)
		os.Exit(0)
	case "grandchild-leave": // grandchild-leave <pidfile> [child mode]: start a same-group child (default mode hang) that keeps stdout, print a result, exit 0
		childMode := "hang"
		if len(args) > 1 {
			childMode = args[1]
		}
		startChild(args[0], false, true, childMode)
		ok("left a child behind")
	case "detach": // detach <pidfile> [inherit]: start a child in a new session, print a result, exit 0
		startChild(args[0], true, len(args) > 1 && args[1] == "inherit", "hang")
		ok("detached")
	case "slow-ok": // slow-ok <duration>: sleep, then print an ok result
		d, _ := time.ParseDuration(args[0])
		time.Sleep(d)
		ok("slow")
	case "prompt": // prompt --prompt-file <path> | --prompt <text>: report what arrived
		prompt(args)
	default:
		fmt.Fprintf(os.Stderr, "fakecli: unknown mode %q\n", mode)
		os.Exit(64)
	}
}

func ok(data any) {
	b, err := json.Marshal(map[string]any{"result_version": 1, "ok": true, "data": data})
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(append(b, '\n'))
}

func hang() {
	for {
		time.Sleep(time.Hour)
	}
}

func flood(f *os.File, n int64) {
	buf := []byte(strings.Repeat("0123456789abcdef", 4096)) // 64 KiB
	for n > 0 {
		w := min(n, int64(len(buf)))
		if _, err := f.Write(buf[:w]); err != nil {
			os.Exit(1)
		}
		n -= w
	}
}

// startChild starts this program again in mode; setsid puts it in a new
// session (detached work), keepStdout lets it inherit our stdout.
func startChild(pidfile string, setsid, keepStdout bool, mode string) {
	self, err := os.Executable()
	if err != nil {
		panic(err)
	}
	cmd := exec.Command(self, mode, pidfile) // the child writes the pid file once it is set up
	if keepStdout {
		cmd.Stdout = os.Stdout
	}
	if setsid {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	// Carry on only once the child is set up, so whatever happens to this
	// process next happens to a child that is really there.
	for {
		if _, err := os.Stat(pidfile); err == nil {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// writePidfile writes this process's pid to args[0], if given, atomically
// (write, then rename) so a reader never sees half a number.
func writePidfile(args []string) {
	if len(args) == 0 {
		return
	}
	tmp := args[0] + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		panic(err)
	}
	if err := os.Rename(tmp, args[0]); err != nil {
		panic(err)
	}
}

func prompt(args []string) {
	var content []byte
	data := map[string]any{}
	switch {
	case len(args) == 2 && args[0] == "--prompt-file":
		b, err := os.ReadFile(args[1])
		if err != nil {
			fail("prompt_unreadable", err.Error())
		}
		st, err := os.Stat(args[1])
		if err != nil {
			fail("prompt_unreadable", err.Error())
		}
		content = b
		data["via"] = "file"
		data["path"] = args[1]
		data["mode"] = fmt.Sprintf("%#o", st.Mode().Perm())
	case len(args) == 2 && args[0] == "--prompt":
		content = []byte(args[1])
		data["via"] = "argv"
	default:
		fail("usage", fmt.Sprintf("want --prompt-file PATH or --prompt TEXT, got %d args", len(args)))
	}
	sum := sha256.Sum256(content)
	data["sha256"] = hex.EncodeToString(sum[:])
	data["bytes"] = len(content)
	ok(data)
}

func fail(code, message string) {
	b, _ := json.Marshal(map[string]any{"result_version": 1, "ok": false,
		"error": map[string]any{"code": code, "message": message, "details": nil}})
	os.Stdout.Write(append(b, '\n'))
	os.Exit(1)
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

func atoi64(s string) int64 { return int64(atoi(s)) }
