package provider

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Logs are turned off only where nothing asks Terraform, OpenTofu or the SDK for them.
func TestQuietLogs(t *testing.T) {
	off := map[string]string{
		"TF_LOG_SDK": "OFF", "TF_LOG_SDK_PROTO": "OFF", "TF_LOG_SDK_FRAMEWORK": "OFF", "TF_LOG_PROVIDER_KAFKA": "OFF",
		"TF_LOG_PROVIDER_KAFKA_KAFKA": "OFF",
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
		{name: "its kafka subsystem's", environ: []string{"TF_LOG_PROVIDER_KAFKA_KAFKA=TRACE"}, want: nil},
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

// What a read logs follows the levels the variables set: nothing watched where both are above
// DEBUG (QuietLogs' OFF among them), no request lines where the subsystem is above TRACE.
func TestReadLoggingFrom(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		want readLogging
	}{
		{"no variable: Terraform filters", nil, readLogging{observe: true, trace: true}},
		{"QuietLogs", QuietLogs(nil), readLogging{}},
		{"provider at INFO", map[string]string{"TF_LOG_PROVIDER_KAFKA": "INFO"}, readLogging{}},
		{"provider at DEBUG, the subsystem too", map[string]string{"TF_LOG_PROVIDER_KAFKA": "debug"}, readLogging{observe: true}},
		{"provider at DEBUG, subsystem OFF: the summary", map[string]string{"TF_LOG_PROVIDER_KAFKA": "DEBUG", "TF_LOG_PROVIDER_KAFKA_KAFKA": "OFF"}, readLogging{observe: true}},
		{"provider OFF, subsystem at TRACE", map[string]string{"TF_LOG_PROVIDER_KAFKA": "OFF", "TF_LOG_PROVIDER_KAFKA_KAFKA": "TRACE"}, readLogging{observe: true, trace: true}},
		{"a level tflog does not know: the provider's", map[string]string{"TF_LOG_PROVIDER_KAFKA": "WARN", "TF_LOG_PROVIDER_KAFKA_KAFKA": "LOUD"}, readLogging{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := readLoggingFrom(func(name string) string { return tc.env[name] }); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
