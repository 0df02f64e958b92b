// Command bench is issue 9's Terraform-level benchmark: it plans N kafka_partition_offsets data
// sources of one topic, and one kafka_topic_offsets of a 10,000-partition topic, against an
// in-process kfake cluster (whose writes reach the client -rtt later), with this provider and
// with the kadm reference provider (tools/benchref), and prints, per case, the medians of -runs
// plans: connections the cluster accepted, requests by API, the wall time of `terraform plan`
// and the provider's peak RSS, and the ratios this/kadm.
//
// Peak RSS and CPU time: Terraform starts the provider binary of a dev_overrides directory; there
// it is a script that runs the real binary under /usr/bin/time -f "%M %U %S", so the figures are
// the kernel's maximum resident set size of the provider process itself (the largest, when
// Terraform starts it more than once in a plan), not Terraform's, and the CPU time (user and
// system) of every provider process of the plan: the part of a plan the provider can change.
//
//	go run ./tools/bench -n 200 -runs 3 -rtt 0,20ms -wide 10000           (make bench)
//	go run ./tools/bench -n 200 -runs 3 -rtt 0,20ms -wide 0 -brokers 3    (make bench: leaders spread)
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

var (
	n         = flag.Int("n", 200, "kafka_partition_offsets data sources in the partition case")
	wide      = flag.Int("wide", 10000, "partitions of the topic in the kafka_topic_offsets case (0: no such case)")
	brokers   = flag.Int("brokers", 1, "brokers of the kfake cluster; partition leaders are spread over them")
	runs      = flag.Int("runs", 3, "plans per case and provider (the median is printed)")
	rtts      = flag.String("rtt", "0,20ms", "simulated round trips, comma-separated")
	providers = flag.String("providers", "this,kadm", "providers to compare")
)

type result struct {
	wall        time.Duration
	rssKiB      int
	cpu         time.Duration // of the provider processes, user and system
	connections int64
	requests    map[int16]int
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	work, err := os.MkdirTemp("", "tfbench")
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = os.RemoveAll(work) }()
	bins := map[string]string{}
	for _, p := range strings.Split(*providers, ",") {
		bins[p] = build(work, p)
	}
	type scenario struct {
		name, config string
	}
	scenarios := []scenario{
		{fmt.Sprintf("%d kafka_partition_offsets of one topic", *n),
			fmt.Sprintf("data \"kafka_partition_offsets\" \"p\" {\n  count     = %d\n  topic     = \"bench\"\n  partition = count.index\n}\n", *n)},
		{fmt.Sprintf("kafka_topic_offsets on %d partitions", *wide), "data \"kafka_topic_offsets\" \"t\" {\n  topic = \"wide\"\n}\n"},
	}
	if *wide == 0 {
		scenarios = scenarios[:1]
	}
	for _, rttS := range strings.Split(*rtts, ",") {
		rtt, err := time.ParseDuration(rttS)
		if err != nil {
			log.Fatalf("-rtt: %v", err)
		}
		for _, sc := range scenarios {
			fmt.Printf("\n### %s, %d broker(s), round trip %s (medians of %d plans)\n\n", sc.name, *brokers, rtt, *runs)
			// Runs alternate between the providers, so that both see the same load of a shared
			// machine.
			names := strings.Split(*providers, ",")
			all := map[string][]result{}
			for i := 0; i < *runs; i++ {
				for _, p := range names {
					all[p] = append(all[p], plan(work, bins[p], rtt, sc.config))
				}
			}
			med := map[string]result{}
			for _, p := range names {
				med[p] = median(all[p])
			}
			printTable(med, strings.Split(*providers, ","))
		}
	}
}

// build compiles a provider into work/<name>/bin/terraform-provider-kafka.real and writes the
// dev_overrides wrapper that measures its peak RSS, and a CLI configuration pointing at it.
func build(work, name string) string {
	pkg := map[string]string{"this": ".", "kadm": "./tools/benchref"}[name]
	if pkg == "" {
		log.Fatalf("unknown provider %q (this, kadm)", name)
	}
	dir := filepath.Join(work, name)
	binary := filepath.Join(dir, "terraform-provider-kafka.real")
	cmd := exec.Command("go", "build", "-o", binary, pkg)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("building %s: %v", name, err)
	}
	bin := filepath.Join(dir, "bin")
	must(os.MkdirAll(bin, 0o755))
	script := fmt.Sprintf("#!/bin/sh\nexec /usr/bin/time -a -o \"$BENCH_RSS_FILE\" -f '%%M %%U %%S' %q \"$@\"\n", binary)
	must(os.WriteFile(filepath.Join(bin, "terraform-provider-kafka"), []byte(script), 0o755))
	rc := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"kafka-offsets/kafka\" = %q\n  }\n  direct {}\n}\n", bin)
	must(os.WriteFile(filepath.Join(dir, "terraformrc"), []byte(rc), 0o644))
	return dir
}

// plan starts a fresh kfake cluster, plans config with the provider in dir and measures it.
func plan(work, dir string, rtt time.Duration, config string) result {
	dl := &acctest.DelayedListener{Delay: rtt}
	c, err := kfake.NewCluster(kfake.NumBrokers(*brokers), kfake.SeedTopics(int32(*n), "bench"),
		kfake.SeedTopics(int32(max(*wide, 1)), "wide"), kfake.ListenFn(dl.Listen))
	must(err)
	defer c.Close()
	counts := acctest.CountRequests(c)
	tf, err := os.MkdirTemp(work, "plan")
	must(err)
	defer func() { _ = os.RemoveAll(tf) }()
	providerBlock := fmt.Sprintf("provider \"kafka\" {\n  bootstrap_servers = [%q]\n}\n", c.ListenAddrs()[0])
	head := "terraform {\n  required_providers {\n    kafka = { source = \"kafka-offsets/kafka\" }\n  }\n}\n"
	must(os.WriteFile(filepath.Join(tf, "main.tf"), []byte(head+providerBlock+config), 0o644))
	rssFile := filepath.Join(tf, "rss")
	cmd := exec.Command("terraform", "plan", "-input=false", "-no-color", "-lock=false", "-refresh=true")
	cmd.Dir = tf
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+filepath.Join(dir, "terraformrc"), "BENCH_RSS_FILE="+rssFile,
		"TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		log.Fatalf("terraform plan with %s: %v\n%s", dir, err, out)
	}
	res := result{wall: wall, connections: dl.Accepted.Load()}
	res.requests = counts()
	data, _ := os.ReadFile(rssFile)
	for _, line := range strings.Split(string(data), "\n") {
		var kib int
		var user, sys float64
		if _, err := fmt.Sscanf(line, "%d %f %f", &kib, &user, &sys); err != nil {
			continue // time's "Command exited with non-zero status" lines
		}
		res.rssKiB = max(res.rssKiB, kib)
		res.cpu += time.Duration((user + sys) * float64(time.Second))
	}
	return res
}

// median keeps, for each figure, its median over rs.
func median(rs []result) result {
	mid := len(rs) / 2
	out := result{requests: map[int16]int{}}
	walls := make([]time.Duration, len(rs))
	rss := make([]int, len(rs))
	cpus := make([]time.Duration, len(rs))
	conns := make([]int64, len(rs))
	for i, r := range rs {
		walls[i], rss[i], cpus[i], conns[i] = r.wall, r.rssKiB, r.cpu, r.connections
	}
	slices.Sort(walls)
	slices.Sort(rss)
	slices.Sort(cpus)
	slices.Sort(conns)
	out.wall, out.rssKiB, out.cpu, out.connections = walls[mid], rss[mid], cpus[mid], conns[mid]
	for _, k := range []kmsg.Key{kmsg.ApiVersions, kmsg.Metadata, kmsg.ListOffsets, kmsg.SASLHandshake} {
		vs := make([]int, len(rs))
		for i, r := range rs {
			vs[i] = r.requests[int16(k)]
		}
		slices.Sort(vs)
		out.requests[int16(k)] = vs[mid]
	}
	return out
}

func printTable(med map[string]result, names []string) {
	fmt.Printf("| | %s |", strings.Join(names, " | "))
	if len(names) == 2 {
		fmt.Printf(" %s/%s |", names[0], names[1])
	}
	fmt.Printf("\n|---|%s\n", strings.Repeat("---|", len(names)+map[bool]int{true: 1}[len(names) == 2]))
	row := func(label string, f func(r result) float64, format string) {
		fmt.Printf("| %s |", label)
		for _, nme := range names {
			fmt.Printf(" "+format+" |", f(med[nme]))
		}
		if len(names) == 2 && f(med[names[1]]) != 0 {
			fmt.Printf(" %.2f× |", f(med[names[0]])/f(med[names[1]]))
		}
		fmt.Println()
	}
	row("connections opened", func(r result) float64 { return float64(r.connections) }, "%.0f")
	for _, k := range []kmsg.Key{kmsg.ApiVersions, kmsg.Metadata, kmsg.ListOffsets} {
		row(k.Name()+" requests", func(r result) float64 { return float64(r.requests[int16(k)]) }, "%.0f")
	}
	row("plan wall time (s)", func(r result) float64 { return r.wall.Seconds() }, "%.2f")
	row("provider CPU time (s)", func(r result) float64 { return r.cpu.Seconds() }, "%.2f")
	row("provider peak RSS (MiB)", func(r result) float64 { return float64(r.rssKiB) / 1024 }, "%.1f")
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
