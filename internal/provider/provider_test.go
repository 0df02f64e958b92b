package provider

import (
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// Acceptance tests run Terraform (the terraform on PATH) against the in-process provider and the
// real broker started by `make testacc`; internal/acctest holds the broker-side helpers.

var protoV6ProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	// the server main.go serves (server.go), so that every acceptance test goes through it
	"kafka": func() (tfprotov6.ProviderServer, error) { return Server("test")(), nil },
}

// clientCounter is a provider factory that counts provider instances and Kafka clients built.
type clientCounter struct {
	mu        sync.Mutex
	providers int
	clients   int
}

func (c *clientCounter) factories() map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"kafka": func() (tfprotov6.ProviderServer, error) {
			c.mu.Lock()
			c.providers++
			c.mu.Unlock()
			p := &KafkaProvider{version: "test", newClient: func(cfg kafkaclient.Config) (*kafkaclient.Client, error) {
				c.mu.Lock()
				c.clients++
				c.mu.Unlock()
				return kafkaclient.New(cfg)
			}}
			return providerserver.NewProtocol6WithError(p)()
		},
	}
}

func (c *clientCounter) counts() (providers, clients int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.providers, c.clients
}

func TestProviderSchemaIsValid(t *testing.T) {
	// Building the server validates every schema (names, descriptions, validators) at once.
	srv, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("schema diagnostic: %s: %s", d.Summary, d.Detail)
	}
	if _, ok := resp.DataSourceSchemas["kafka_partition_offsets"]; !ok {
		t.Fatalf("kafka_partition_offsets missing from the schema; have %v", resp.DataSourceSchemas)
	}
}
