package provider

import (
	"context"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	dschema "github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
)

// maxSentences bounds an attribute's description: what it is, its shape and unit, when it is
// null. The cases and the why belong in the data source's page or a guide, where a reader looks
// for them; a description that grows past this is a sign they landed in the wrong place.
const maxSentences = 3

// Every attribute and block of the provider and its data sources is described in at most
// maxSentences sentences.
func TestAttributeDescriptionsAreShort(t *testing.T) {
	ctx := context.Background()
	descs := map[string]string{}
	p := New("test")()
	var ps provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &ps)
	for name, a := range ps.Schema.Attributes {
		descs["provider."+name] = a.GetMarkdownDescription()
	}
	for name, b := range ps.Schema.Blocks {
		descs["provider."+name] = b.GetMarkdownDescription()
		if nb, ok := b.(pschema.SingleNestedBlock); ok {
			for an, a := range nb.Attributes {
				descs["provider."+name+"."+an] = a.GetMarkdownDescription()
			}
		}
	}
	for _, f := range p.DataSources(ctx) {
		ds := f()
		var mr datasource.MetadataResponse
		ds.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "kafka"}, &mr)
		var sr datasource.SchemaResponse
		ds.Schema(ctx, datasource.SchemaRequest{}, &sr)
		dataSourceDescriptions(mr.TypeName+".", sr.Schema.Attributes, descs)
		for name, b := range sr.Schema.Blocks {
			descs[mr.TypeName+"."+name] = b.GetMarkdownDescription()
			if nb, ok := b.(dschema.SingleNestedBlock); ok {
				dataSourceDescriptions(mr.TypeName+"."+name+".", nb.Attributes, descs)
			}
		}
	}
	var long []string
	for name, d := range descs {
		if n := sentences(d); n > maxSentences {
			long = append(long, name)
		}
	}
	sort.Strings(long)
	for _, name := range long {
		t.Errorf("%s: %d sentences, want at most %d:\n%s", name, sentences(descs[name]), maxSentences, descs[name])
	}
}

// Data source descriptions, which tfplugindocs puts in each page's front matter and the registries
// list, are at most 2 sentences and 250 characters: what it reads. How it reads goes in the
// page's "How it reads" (templates/data-sources).
const (
	maxDataSourceSentences = 2
	maxDataSourceChars     = 250
)

func TestDataSourceDescriptionsAreShort(t *testing.T) {
	ctx := context.Background()
	for _, f := range New("test")().DataSources(ctx) {
		ds := f()
		var mr datasource.MetadataResponse
		ds.Metadata(ctx, datasource.MetadataRequest{ProviderTypeName: "kafka"}, &mr)
		var sr datasource.SchemaResponse
		ds.Schema(ctx, datasource.SchemaRequest{}, &sr)
		d := sr.Schema.MarkdownDescription
		if n := sentences(d); n == 0 || n > maxDataSourceSentences || len(d) > maxDataSourceChars {
			t.Errorf("%s: %d sentences, %d characters; want 1 to %d sentences and at most %d characters:\n%s",
				mr.TypeName, n, len(d), maxDataSourceSentences, maxDataSourceChars, d)
		}
	}
}

func dataSourceDescriptions(prefix string, attrs map[string]dschema.Attribute, out map[string]string) {
	for name, a := range attrs {
		out[prefix+name] = a.GetMarkdownDescription()
		if na, ok := a.(dschema.ListNestedAttribute); ok {
			dataSourceDescriptions(prefix+name+".", na.NestedObject.Attributes, out)
		}
	}
}

var (
	codeSpan    = regexp.MustCompile("`[^`]*`")
	sentenceEnd = regexp.MustCompile(`[.!?](\s|$)`)
)

// sentences counts the sentences of a description: ends of sentence outside code spans.
func sentences(d string) int {
	return len(sentenceEnd.FindAllString(codeSpan.ReplaceAllString(strings.TrimSpace(d), "code"), -1))
}

func TestSentences(t *testing.T) {
	for d, want := range map[string]int{
		"One.":                       1,
		"One. Two, `a. b` three.":    2,
		"A time such as `1.5s`. Ok.": 2,
		"":                           0,
	} {
		if got := sentences(d); got != want {
			t.Errorf("sentences(%q) = %d, want %d", d, got, want)
		}
	}
}
