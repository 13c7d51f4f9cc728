//go:build unix

package cli

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/quota"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/termsafe"
)

func (a *app) teamCmd() *cobra.Command {
	return group("team", "message boards runs and people share", a.teamCreateCmd(), a.teamListCmd(), a.teamPostCmd(), a.teamReadCmd())
}

func (a *app) teamCreateCmd() *cobra.Command {
	c := &cobra.Command{Use: "create NAME", Short: "create a team board", Args: cobra.ExactArgs(1)}
	constrainName(c, "name")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		if err := checkName("name", args[0]); err != nil {
			return err
		}
		st, err := a.store(cmd.Context())
		if err != nil {
			return err
		}
		t, err := st.CreateTeam(cmd.Context(), args[0])
		if err != nil {
			return err
		}
		return a.ok(map[string]any{"team": t}, func(w io.Writer) { fmt.Fprintf(w, "created team %s\n", termsafe.Line(t.Name)) })
	})
	return c
}

func (a *app) teamListCmd() *cobra.Command {
	c := &cobra.Command{Use: "list", Short: "list team boards", Args: cobra.NoArgs}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		ts, err := st.Teams(cmd.Context())
		if err != nil {
			return err
		}
		if ts == nil {
			ts = []store.Team{}
		}
		return a.ok(map[string]any{"teams": ts}, func(w io.Writer) {
			for _, t := range ts {
				fmt.Fprintf(w, "%-20s %d messages\n", termsafe.Line(t.Name), t.Messages)
			}
		})
	})
	return c
}

func (a *app) teamPostCmd() *cobra.Command {
	var author string
	c := &cobra.Command{Use: "post TEAM MESSAGE", Short: "post a message on a team board", Args: cobra.ExactArgs(2)}
	c.Flags().StringVar(&author, "author", "", "who is posting (default $USER)")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		if author == "" {
			author = a.opts.Getenv("USER")
		}
		if author == "" {
			author = "someone"
		}
		limits, err := a.limits()
		if err != nil {
			return err
		}
		st, err := a.store(cmd.Context())
		if err != nil {
			return err
		}
		m, err := st.PostWithin(cmd.Context(), store.Message{Team: args[0], Author: author, Body: args[1]}, limits.BoardBytes)
		if errors.Is(err, store.ErrBoardLimit) {
			used, _ := st.BoardBytes(cmd.Context())
			return quota.Reached("board_bytes", limits.BoardBytes, used, fmt.Sprintf("the message was not posted on team %q", args[0]))
		}
		if err != nil {
			return err
		}
		return a.ok(map[string]any{"message": m}, func(w io.Writer) { fmt.Fprintf(w, "posted #%d on %s\n", m.Seq, termsafe.Line(m.Team)) })
	})
	return c
}

func (a *app) teamReadCmd() *cobra.Command {
	var after int64
	var limit int
	c := &cobra.Command{Use: "read TEAM", Short: "read a team board, oldest first", Args: cobra.ExactArgs(1)}
	c.Flags().Int64Var(&after, "after", 0, "only messages after this sequence number")
	c.Flags().IntVar(&limit, "limit", 100, "at most this many messages (1..1000)")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		if limit < 1 || limit > 1000 {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "limit"}, "--limit %d is out of range 1..1000", limit)
		}
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		ms, err := st.Read(cmd.Context(), args[0], after, limit)
		if err != nil {
			return err
		}
		if ms == nil {
			ms = []store.Message{}
		}
		return a.ok(map[string]any{"team": args[0], "messages": ms}, func(w io.Writer) {
			for _, m := range ms {
				fmt.Fprintf(w, "#%d %s %s: %s\n", m.Seq, m.At.Local().Format(time.DateTime), termsafe.Line(m.Author), termsafe.Line(m.Body))
			}
		})
	})
	return c
}
