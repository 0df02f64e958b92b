package kafkaclient

import (
	"sync"
)

// contacts is what one Client (one provider process) remembers of the cluster across reads: the
// addresses that answered like Kafka, and the bootstrap server that answered last (the seed).
//
// It decides how a failed connection reads. Before any address has answered, a refused
// connection is most likely a typo in bootstrap_servers, and fails the read at once. Once the
// cluster has answered, the same refusal is a broker restarting, crashing or handing over its
// leaderships (rolling upgrades, lost hosts): retried with fresh metadata until the read's timeout.
type contacts struct {
	mu       sync.Mutex
	answered map[string]bool
	seed     string
}

func newContacts() *contacts { return &contacts{answered: map[string]bool{}} }

// noteAnswered records that address sent the start of a Kafka response.
func (c *contacts) noteAnswered(address string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answered[address] = true
}

// answeredBefore reports whether address has answered in this process.
func (c *contacts) answeredBefore(address string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.answered[address]
}

// reached reports whether any address has answered in this process: past first contact.
func (c *contacts) reached() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.answered) > 0
}

// currentSeed is the bootstrap server to ask for metadata, "" when none is chosen.
func (c *contacts) currentSeed() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seed
}

func (c *contacts) setSeed(address string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seed = address
}

// dropSeed forgets the seed if it is still address, so that the next attempt races the
// bootstrap servers again.
func (c *contacts) dropSeed(address string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seed == address {
		c.seed = ""
	}
}
