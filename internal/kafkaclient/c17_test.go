package kafkaclient

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/segmentio/kafka-go/sasl"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// countedMechanism counts the SASL logins a mechanism starts: one per connection.
type countedMechanism struct {
	sasl.Mechanism
	logins atomic.Int32
}

func (m *countedMechanism) Start(ctx context.Context) (sasl.StateMachine, []byte, error) {
	m.logins.Add(1)
	return m.Mechanism.Start(ctx)
}

// Case C17 on the real broker: 200 kafka_partition_offsets reads of one topic over SASL/SCRAM and
// TLS, 10 at a time through one Client (one provider process), cost one TCP connection, one TLS
// handshake and one SCRAM login per broker (plus one to the bootstrap address when the broker
// advertises another name for itself), not one per read.
func TestAccC17OneLoginPerBroker(t *testing.T) {
	auth := acctest.Auth(t)
	k := acctest.Connect(t)
	topic := k.CreateTopic(acctest.TopicName(t, "c17"), 20, nil)
	k.Produce(topic, 3, 5)

	tlsCfg, err := NewTLSConfig(TLSConfig{CACert: acctest.ReadFile(t, auth.CAFile)})
	if err != nil {
		t.Fatal(err)
	}
	mech, err := NewSASL(context.Background(), SASLConfig{Mechanism: MechanismScramSHA512, Username: auth.Username, Password: auth.Password})
	if err != nil {
		t.Fatal(err)
	}
	counted := &countedMechanism{Mechanism: mech.mech()}
	var dials atomic.Int32
	cl, err := New(Config{
		BootstrapServers: []string{auth.SASLSSL}, Timeout: 30 * time.Second, TLS: tlsCfg, SASL: &SASL{mechanism: counted},
		Dial: func(ctx context.Context, network, address string) (net.Conn, error) {
			dials.Add(1)
			return (&net.Dialer{}).DialContext(ctx, network, address)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	start := time.Now()
	readPartitionsConcurrently(t, cl, topic, 200, 20, 10)
	got, err := cl.PartitionOffsets(context.Background(), topic, 3)
	if err != nil || got.Earliest != 0 || got.Latest != 5 {
		t.Fatalf("partition 3: got %+v, %v; want 0/5", got, err)
	}
	t.Logf("201 reads in %s: %d connections (TLS handshakes), %d SCRAM logins", time.Since(start), dials.Load(), counted.logins.Load())
	if n := dials.Load(); n > 2 { // one broker, plus the bootstrap address if it is spelled differently
		t.Errorf("opened %d connections for one broker; want 1 (2 if the bootstrap address differs from the advertised one)", n)
	}
	if counted.logins.Load() != dials.Load() {
		t.Errorf("%d logins on %d connections; want one per connection", counted.logins.Load(), dials.Load())
	}
}
