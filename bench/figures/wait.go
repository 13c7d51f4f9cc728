//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// waitLatency submits echo runs through the session and measures how long
// after each run's recorded end job.wait (poll 1 s) answers.
func waitLatency(ctx context.Context, srv *server, bin, home string, waits int) (*table, error) {
	fpResp, err := srv.request(ctx, `{"help":"agent.submit"}`)
	if err != nil {
		return nil, err
	}
	var fp struct {
		Help struct {
			FP string `json:"schema_fingerprint"`
		} `json:"help"`
	}
	if err := json.Unmarshal(fpResp, &fp); err != nil || fp.Help.FP == "" {
		return nil, fmt.Errorf("help agent.submit: %s", fpResp)
	}
	var lates []time.Duration
	for range waits {
		resp, err := srv.request(ctx, `{"ops":[{"op":"agent.submit","args":{"model":"echo:delay=400ms","prompt":"wait"},"fingerprint":"`+fp.Help.FP+`"}]}`)
		if err != nil {
			return nil, err
		}
		var s struct {
			Results []struct {
				Result struct {
					ID string `json:"id"`
				} `json:"result"`
			} `json:"results"`
		}
		if err := json.Unmarshal(resp, &s); err != nil || len(s.Results) != 1 || s.Results[0].Result.ID == "" {
			return nil, fmt.Errorf("agent.submit: %s", resp)
		}
		rid := s.Results[0].Result.ID
		resp, err = srv.request(ctx, `{"ops":[{"op":"job.wait","args":{"ids":["`+rid+`"],"poll_interval_seconds":1,"max_wait_seconds":20}}]}`)
		arrived := time.Now()
		if err != nil {
			return nil, err
		}
		if !strings.Contains(string(resp), `"all_terminal":true`) {
			return nil, fmt.Errorf("job.wait: %s", resp)
		}
		ended, err := endedAt(bin, home, rid)
		if err != nil {
			return nil, err
		}
		lates = append(lates, arrived.Sub(ended))
	}
	t := &table{title: "waiting and memory (limcp mcp)"}
	t.add("job.wait answer after the run's end (poll 1 s)", fmt.Sprintf("median %s (n=%d; max %s)", msec(median(lates)), waits, msec(maxOf(lates))), "< 100 ms")
	return t, nil
}

func endedAt(bin, home, id string) (time.Time, error) {
	out, err := exec.Command(bin, "--home", home, "--json", "job", "status", id).Output()
	if err != nil {
		return time.Time{}, fmt.Errorf("limcp job status: %w", err)
	}
	var d struct {
		Data struct {
			Records []struct {
				EndedAt time.Time `json:"ended_at"`
			} `json:"records"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &d); err != nil || len(d.Data.Records) != 1 || d.Data.Records[0].EndedAt.IsZero() {
		return time.Time{}, fmt.Errorf("no end recorded for %s: %s", id, out)
	}
	return d.Data.Records[0].EndedAt, nil
}
