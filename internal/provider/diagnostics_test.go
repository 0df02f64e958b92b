package provider

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

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

// A broker advertised under a name that does not resolve here has a summary of its own, apart
// from "Cannot reach the Kafka cluster" (bootstrap servers) and "Kafka read timed out", and its
// detail names the broker and the ways out; also when a read wraps the error.
func TestUnresolvableBrokerDiagnostic(t *testing.T) {
	unresolvable := &kafkaclient.UnresolvableBrokerError{
		Op: `ListOffsets (earliest) for topic "orders" partition 3`, BrokerID: 2, Address: "kafka-2:9092",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "kafka-2", IsNotFound: true}},
	}
	const detail = `ListOffsets (earliest) for topic "orders" partition 3: the cluster's metadata gives broker 2 ` +
		`the address kafka-2:9092, and the host name "kafka-2" does not resolve from this machine (no such host). ` +
		"Kafka gives clients the address each broker advertises for the listener they connected to (the broker's " +
		"advertised.listeners), and the machine where Terraform runs cannot resolve this one: a broker behind " +
		"Docker, Kubernetes or a VPN often advertises a name that only its own network knows. Point " +
		"bootstrap_servers at the listener meant for clients outside that network, set the broker's " +
		"advertised.listeners to a host reachable from here, or make the name resolve here (DNS, or the hosts file)."
	for _, tc := range []struct {
		name   string
		err    error
		detail string
	}{
		{name: "as returned", err: unresolvable, detail: detail},
		{name: "wrapped", err: fmt.Errorf("reading: %w", unresolvable), detail: "reading: " + detail},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var diags diag.Diagnostics
			addReadError(&diags, tc.err, path.Root("topic"))
			if len(diags) != 1 {
				t.Fatalf("got %d diagnostics, want 1: %v", len(diags), diags)
			}
			d := diags[0]
			if d.Severity() != diag.SeverityError || d.Summary() != "Broker address does not resolve" || d.Detail() != tc.detail {
				t.Fatalf("got %s %q:\n%s\nwant error %q:\n%s", d.Severity(), d.Summary(), d.Detail(),
					"Broker address does not resolve", tc.detail)
			}
		})
	}
}
