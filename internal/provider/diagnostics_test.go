package provider

import (
	"strings"
	"testing"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// Raising the timeout is advice only where the time ran out, not after a refused connection.
func TestUnreachableAdvice(t *testing.T) {
	const raise = "raise the provider's timeout"
	if a := unreachableAdvice(&kafkaclient.UnreachableError{}); strings.Contains(a, raise) {
		t.Errorf("refused at once, yet advised to %s: %s", raise, a)
	}
	if a := unreachableAdvice(&kafkaclient.UnreachableError{TimedOut: true}); !strings.Contains(a, raise) {
		t.Errorf("timed out, yet not advised to %s: %s", raise, a)
	}
}
