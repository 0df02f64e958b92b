package provider

// The provider's timeout: a Go duration from minTimeout to maxTimeout, from the attribute, else
// KAFKA_TIMEOUT, else kafkaclient.DefaultTimeout. timetypes.GoDuration checks the attribute's form; the bounds
// are ours, and KAFKA_TIMEOUT gets both checks here with the same verdicts.

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// Bounds of timeout: below a second no connection handshake fits, and a read that may take a day
// is a hang by another name.
const (
	minTimeout = time.Second
	maxTimeout = 24 * time.Hour
)

// timeout takes the attribute, else the environment variable, else the default.
func timeout(cfg providerModel, diags *diag.Diagnostics) time.Duration {
	var raw, source string
	if !cfg.Timeout.IsNull() {
		raw, source = cfg.Timeout.ValueString(), "timeout"
	} else if raw = strings.TrimSpace(os.Getenv(EnvTimeout)); raw != "" {
		source = "environment variable " + EnvTimeout
	} else {
		return kafkaclient.DefaultTimeout
	}
	d, err := parseTimeout(raw)
	if err != nil {
		diags.AddAttributeError(path.Root("timeout"), "Invalid timeout", fmt.Sprintf("In the %s: %s.", source, err))
	}
	return d
}

// parseTimeout checks a timeout as the attribute is checked: Go's duration syntax
// (time.ParseDuration, as timetypes.GoDuration), then the bounds.
func parseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		// Also a number too large for a Go duration (about 292 years), such as "3000000h".
		return 0, fmt.Errorf("%q is not a Go duration: want a number with a unit from %s to %s, such as \"10s\" or \"1m30s\"",
			s, minTimeout, maxTimeout)
	}
	return d, checkTimeoutBounds(s, d)
}

// checkTimeoutBounds says how d, parsed from s, is outside the bounds.
func checkTimeoutBounds(s string, d time.Duration) error {
	switch {
	case d < 0, strings.HasPrefix(s, "-"), d == 0 && !strings.ContainsAny(s, "123456789"):
		// time.ParseDuration truncates to whole nanoseconds: "0.5ns" is 0, yet positive.
		return fmt.Errorf("%q is not positive: want a duration from %s to %s, such as \"10s\"", s, minTimeout, maxTimeout)
	case d < minTimeout:
		return fmt.Errorf("%q is shorter than %s, too short to connect to a broker", s, minTimeout)
	case d > maxTimeout:
		return fmt.Errorf("%q is longer than %s", s, maxTimeout)
	}
	return nil
}

// timeoutBounds checks the timeout attribute's bounds while planning, with KAFKA_TIMEOUT's verdicts.
var timeoutBounds = durationCheck{
	summary:     "Invalid timeout",
	description: fmt.Sprintf("must be a Go duration from %s to %s, such as \"10s\" or \"1m30s\"", minTimeout, maxTimeout),
	check:       checkTimeoutBounds,
}
