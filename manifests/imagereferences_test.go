package manifests

import (
	"strings"
	"testing"
)

// image-references names every image of the operator Deployment exactly once, so a release built from
// these manifests pins all nine.
func TestImageReferencesMatchTheDeployment(t *testing.T) {
	tags, err := ImageReferences()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Deployment()
	if err != nil {
		t.Fatal(err)
	}
	images := DeploymentImages(d)
	if len(images) != 9 {
		t.Errorf("the Deployment carries %d images, want the operator and eight operand images: %v", len(images), images)
	}
	for _, p := range CheckImageReferences(tags, images) {
		t.Error(p)
	}
}

// The check refuses what would leave an image unpinned or name one that is not there.
func TestCheckImageReferencesRefuses(t *testing.T) {
	tag := func(name, image string) ImageTag {
		var tg ImageTag
		tg.Name, tg.From.Kind, tg.From.Name = name, "DockerImage", image
		return tg
	}
	images := []string{"a:1", "b:1"}
	for _, tc := range []struct {
		name string
		tags []ImageTag
		want string
	}{
		{"an image without a tag", []ImageTag{tag("a", "a:1")}, "image b:1 has 0 tags"},
		{"a tag of an image not carried", []ImageTag{tag("a", "a:1"), tag("b", "b:1"), tag("c", "c:1")}, "tag c names c:1"},
		{"two tags of one image", []ImageTag{tag("a", "a:1"), tag("a2", "a:1"), tag("b", "b:1")}, "image a:1 has 2 tags"},
		{"a duplicate name", []ImageTag{tag("a", "a:1"), tag("a", "b:1")}, "tag a appears twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(CheckImageReferences(tc.tags, images), "; ")
			if !strings.Contains(got, tc.want) {
				t.Errorf("problems %q, want one saying %q", got, tc.want)
			}
		})
	}
	if p := CheckImageReferences([]ImageTag{tag("a", "a:1"), tag("b", "b:1")}, images); len(p) > 0 {
		t.Errorf("a matching list has problems: %v", p)
	}
}
