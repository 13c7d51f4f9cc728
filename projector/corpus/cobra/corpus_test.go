package cobracorpus

import (
	"testing"

	crane "github.com/google/go-containerregistry/cmd/crane/cmd"
	yq "github.com/mikefarah/yq/v4/cmd"
	kindlog "sigs.k8s.io/kind/pkg/cmd"
	kindcmd "sigs.k8s.io/kind/pkg/cmd/kind"

	"github.com/verbsurface/verbsurface/projector/fromcobra"
)

func TestBuild(t *testing.T) {
	_ = yq.New
	_ = kindcmd.NewCommand
	_ = kindlog.NewLogger
	_ = crane.New
	_ = fromcobra.Walk
}
