package run

import (
	"os"
	"strconv"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// groupCounts maps each process group to its number of live (non-zombie)
// members, from one pass over /proc.
func groupCounts() (map[int]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	out := map[int]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := procid.ReadStat(pid)
		if err != nil || st.State == 'Z' || st.State == 'X' {
			continue
		}
		out[st.PGID]++
	}
	return out, nil
}
