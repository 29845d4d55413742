// Package yamlsize bounds what a YAML document expands to before anything expands it: aliases are
// bounded by count in YAML libraries, not by size, so a small document aliasing one large scalar
// thousands of times would otherwise take hundreds of megabytes.
package yamlsize

import (
	"errors"
	"fmt"

	"gopkg.in/yaml.v3"
)

// MaxExpanded is the default bound: a ConfigMap or Secret holds at most 1 MiB, and an input that
// expands far beyond its own size is an attack or a mistake.
const MaxExpanded = 2 << 20

// Check returns an error when data, with every alias expanded, would exceed limit bytes. It walks the
// parsed node tree, counting each anchor's size once, and never expands anything.
func Check(data []byte, limit int) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil // not YAML: the real parser reports it with its own message
	}
	sizes := map[*yaml.Node]int{}
	total, err := size(&doc, sizes, limit)
	if err != nil {
		return err
	}
	if total > limit {
		return tooLarge(limit)
	}
	return nil
}

var errCycle = errors.New("an alias refers to itself")

func tooLarge(limit int) error {
	return fmt.Errorf("the document expands to more than %d KiB once its aliases are resolved", limit>>10)
}

func size(n *yaml.Node, sizes map[*yaml.Node]int, limit int) (int, error) {
	if s, ok := sizes[n]; ok {
		if s < 0 {
			return 0, errCycle
		}
		return s, nil
	}
	sizes[n] = -1
	total := len(n.Value) + len(n.Tag) + 2
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		s, err := size(n.Alias, sizes, limit)
		if err != nil {
			return 0, err
		}
		total = s
	}
	for _, c := range n.Content {
		s, err := size(c, sizes, limit)
		if err != nil {
			return 0, err
		}
		total += s
		if total > limit {
			return 0, tooLarge(limit)
		}
	}
	sizes[n] = total
	return total, nil
}
