package org.ingestquarantine.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Ensures a path is compared with an http-allow prefix as a server reads it, and a path that could climb out is refused. */
class HttpPathTest {

    @Test
    void shouldDecodeUnreservedCharactersAndUpperCaseOtherEscapes() {
        assertThat(HttpPath.normalise("/docs/%41%7e%2D_file.pdf")).isEqualTo("/docs/A~-_file.pdf");
        assertThat(HttpPath.normalise("/docs/a%20b%c3%a9.pdf")).isEqualTo("/docs/a%20b%C3%A9.pdf");
        assertThat(HttpPath.normalise("")).isEqualTo("/");
        assertThat(HttpPath.normalise(null)).isEqualTo("/");
        assertThat(HttpPath.normalise("/docs/.hidden/..more/a...pdf")).isEqualTo("/docs/.hidden/..more/a...pdf");
    }

    @Test
    void shouldRefuseDotSegmentsEncodedOrNot() {
        for (String path : new String[] {"/docs/%2e%2e/secret.pdf", "/docs/%2E%2E/secret.pdf", "/docs/.%2e/secret.pdf",
                "/docs/../secret.pdf", "/docs/a/..", "/docs/./a.pdf", "/docs/%2e/a.pdf", "/docs/..;x/secret.pdf",
                "/docs/%2e%2e;/secret.pdf", "/.."}) {
            assertThatThrownBy(() -> HttpPath.normalise(path)).as(path).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("dot segment");
        }
    }

    @Test
    void shouldRefuseEncodedSlashesAndBackslashes() {
        for (String path : new String[] {"/docs/..%2fsecret.pdf", "/docs/%2E%2E%2Fsecret.pdf", "/docs/..%2Fsecret.pdf",
                "/docs/..%5csecret.pdf", "/docs/a%2fb.pdf"}) {
            assertThatThrownBy(() -> HttpPath.normalise(path)).as(path).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("encoded slash");
        }
    }

    @Test
    void shouldRefuseABrokenEscape() {
        assertThatThrownBy(() -> HttpPath.normalise("/docs/%2")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HttpPath.normalise("/docs/%zz")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRemoveDotSegmentsAsRfc3986Says() {
        // RFC 3986 §5.2.4's own examples
        assertThat(HttpPath.removeDotSegments("/a/b/c/./../../g")).isEqualTo("/a/g");
        assertThat(HttpPath.removeDotSegments("mid/content=5/../6")).isEqualTo("mid/6");
        assertThat(HttpPath.removeDotSegments("/../a")).isEqualTo("/a");
        assertThat(HttpPath.removeDotSegments("/a/b/..")).isEqualTo("/a/");
        assertThat(HttpPath.removeDotSegments("/a//b/")).isEqualTo("/a//b/");
    }
}
