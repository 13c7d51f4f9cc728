//go:build unix

package notify

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// maxReason bounds the part of a failure reason quoted from the receiver
// (a response body, a command's stderr).
const maxReason = 300

// LoopbackClient returns an HTTP client for notify URLs: no proxy (an
// environment proxy must not carry a run record off the machine), no
// redirects (a redirect is a failed attempt), and a dialer that refuses any
// non-loopback address at connect time, whatever a host name resolved to.
func LoopbackClient() *http.Client {
	dialer := &net.Dialer{
		Timeout: 5 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
				return fmt.Errorf("refusing to connect to %s: notify URLs are loopback only", address)
			}
			return nil
		},
	}
	return &http.Client{
		Transport: &http.Transport{
			Proxy:             nil,
			DialContext:       dialer.DialContext,
			DisableKeepAlives: true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// post sends body to rawURL; a 2xx response is a delivery. The context
// bounds the whole exchange.
func post(ctx context.Context, client *http.Client, rawURL string, body []byte, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "limcp-notify")
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return fmt.Errorf("POST %s timed out after %s", rawURL, timeout)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is already in the message
		}
		return fmt.Errorf("POST %s: %v", rawURL, err)
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(io.LimitReader(resp.Body, maxReason+1))
	if resp.StatusCode/100 != 2 {
		msg := fmt.Sprintf("POST %s: HTTP %d", rawURL, resp.StatusCode)
		if resp.StatusCode/100 == 3 {
			msg += " (redirects are not followed)"
		}
		if t := clip(strings.TrimSpace(string(text))); t != "" {
			msg += ": " + t
		}
		return errors.New(msg)
	}
	return nil
}

// runCommand runs argv with no shell, body on its stdin, in its own
// process group, and waits at most timeout. Exit status 0 is a delivery.
// On timeout the whole group is killed (SIGKILL): a hanging notify command
// and anything it started are stopped, never left behind. After a normal
// exit, members of its group still alive (something it started in the
// background) are killed too.
//
// Stdin and stderr are unlinked temporary files, not pipes, so a
// grandchild holding them open cannot make the wait hang.
func runCommand(argv []string, env []string, dir string, body []byte, timeout time.Duration) error {
	stdin, err := tempWith(body)
	if err != nil {
		return fmt.Errorf("preparing stdin: %v", err)
	}
	defer stdin.Close()
	stderr, err := tempWith(nil)
	if err != nil {
		return fmt.Errorf("preparing stderr: %v", err)
	}
	defer stderr.Close()

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, nil, stderr
	cmd.Env, cmd.Dir = env, dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("cannot start %s: %v", argv[0], err)
	}
	pgid := cmd.Process.Pid
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err = <-done:
		// The group outlives its leader only while a member lives, and a
		// live group's id is never reused, so this signal cannot reach a
		// stranger.
		if members, _ := procid.GroupMembers(pgid); len(members) > 0 {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	case <-timer.C:
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
		return fmt.Errorf("%s timed out after %s; its process group was killed", argv[0], timeout)
	}
	if err == nil {
		return nil
	}
	msg := fmt.Sprintf("%s: %v", argv[0], err)
	if tail := lastLine(stderr); tail != "" {
		msg += ": " + tail
	}
	return errors.New(msg)
}

// tempWith returns an unlinked temporary file holding b, positioned at 0.
func tempWith(b []byte) (*os.File, error) {
	f, err := os.CreateTemp("", "limcp-notify-")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// lastLine returns the last non-empty line of f, bounded.
func lastLine(f *os.File) string {
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	off := fi.Size() - 4096
	if off < 0 {
		off = 0
	}
	b := make([]byte, fi.Size()-off)
	n, _ := f.ReadAt(b, off)
	lines := strings.Split(strings.TrimSpace(string(b[:n])), "\n")
	return clip(strings.TrimSpace(lines[len(lines)-1]))
}

// clip makes text quoted from a receiver fit a failure reason: valid UTF-8
// (the reason is stored and printed as JSON) and at most maxReason bytes,
// cut at a character boundary and marked with "…" when cut.
func clip(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= maxReason {
		return s
	}
	cut := maxReason
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
