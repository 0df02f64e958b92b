package kafkaclient

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test ends with its Client released: kafka-go's Transport runs a metadata goroutine and one
// per connection until CloseIdleConnections, and a read must not leave them behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
