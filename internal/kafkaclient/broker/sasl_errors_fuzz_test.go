package broker

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// FuzzSASLErrorText: whatever a broker sends as its reason (SaslAuthenticate's error message)
// or as the mechanisms it offers (SaslHandshake), every kind of SASLError names the broker and
// the mechanism, shows the broker's text without a raw control character (no forged lines or
// terminal escapes in a Terraform diagnostic), and shows every offered name, quoted when it is not a plain SASL name.
func FuzzSASLErrorText(f *testing.F) {
	f.Add(uint8(0), "Authentication failed: Invalid username or password", "")
	f.Add(uint8(0), "", "")
	f.Add(uint8(1), "", "SCRAM-SHA-512\x00OAUTHBEARER")
	f.Add(uint8(1), "", "PLAIN\nfake line\x00\x1b[31mred")
	f.Add(uint8(2), "", "")
	f.Add(uint8(3), "", "SCRAM-SHA-256\x00")
	f.Add(uint8(4), "token endpoint said \"no\"", "")
	f.Fuzz(func(t *testing.T, problem uint8, brokerMessage, offered string) {
		e := &SASLError{Address: "broker-1:9092", Mechanism: "PLAIN", Identity: `user "app"`,
			Problem: SASLProblem(problem % 5), BrokerMessage: brokerMessage, Err: errors.New("cause")}
		if offered != "" {
			e.Offered = strings.Split(offered, "\x00")
		}
		text := e.Error()
		if !strings.Contains(text, "broker-1:9092") || (e.Problem != SASLRequired && !strings.Contains(text, "PLAIN")) {
			t.Fatalf("%v error does not name the broker and mechanism: %q", e.Problem, text)
		}
		if r := acctest.ControlRune(text); r >= 0 {
			t.Fatalf("error holds the control character %U: %q", r, text)
		}
		if e.Problem == SASLMechanismNotEnabled || e.Problem == SASLRequired {
			for _, name := range e.Offered {
				if !strings.Contains(text, name) && !strings.Contains(text, strconv.Quote(name)) {
					t.Fatalf("offered mechanism %q missing from %q", name, text)
				}
			}
		}
	})
}
