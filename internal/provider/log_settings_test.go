package provider

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Logs are turned off only where nothing asks Terraform, OpenTofu or the SDK for them.
func TestQuietLogs(t *testing.T) {
	off := map[string]string{
		"TF_LOG_SDK": "OFF", "TF_LOG_SDK_PROTO": "OFF", "TF_LOG_SDK_FRAMEWORK": "OFF", "TF_LOG_PROVIDER_KAFKA": "OFF",
	}
	for _, tc := range []struct {
		name    string
		environ []string
		want    map[string]string
	}{
		{name: "no log variable", environ: []string{"HOME=/root", "KAFKA_BOOTSTRAP_SERVERS=b:9092"}, want: off},
		{name: "an empty TF_LOG asks for nothing", environ: []string{"TF_LOG="}, want: off},
		{name: "TF_LOG", environ: []string{"TF_LOG=TRACE"}, want: nil},
		{name: "TF_LOG_PROVIDER", environ: []string{"TF_LOG_PROVIDER=DEBUG"}, want: nil},
		{name: "TF_LOG_PATH", environ: []string{"TF_LOG_PATH=/tmp/tf.log"}, want: nil},
		{name: "the SDK's own", environ: []string{"TF_LOG_SDK_PROTO=TRACE"}, want: nil},
		{name: "the provider's own", environ: []string{"TF_LOG_PROVIDER_KAFKA=DEBUG"}, want: nil},
		{name: "the test sink", environ: []string{"TF_ACC_LOG_PATH=/tmp/acc.log"}, want: nil},
		{name: "OpenTofu", environ: []string{"TOFU_LOG=INFO"}, want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, QuietLogs(tc.environ)); diff != "" {
				t.Errorf("QuietLogs (-want +got):\n%s", diff)
			}
		})
	}
}
