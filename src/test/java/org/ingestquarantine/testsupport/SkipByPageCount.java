package org.ingestquarantine.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The routes guide's "skip by page count" example AS WRITTEN in routes/README.md (the yaml block after its marker),
 * put where the guide says (right after the parse step of process-document) in a copy of {@code routes/}, with a
 * {@code stop} after fetch for {@value #STOPPED} that skips every outcome: the edit a route author must not make.
 */
public final class SkipByPageCount {

    /** The document the {@code stop} edit ends without an outcome. */
    public static final String STOPPED = "stopped.pdf";
    /** The reason the guide's example gives. */
    public static final String REASON = "over-max-pages";

    private static final Pattern EXAMPLE = Pattern.compile(
            "<!-- example: skip-by-page-count[^\\n]*-->\\n```yaml\\n(.*?)```", Pattern.DOTALL);
    private static final String AFTER_PARSE = "              - bean: { ref: parseStage, method: parse }\n";
    private static final String AFTER_FETCH = "              - setProperty: { name: iqFetched, simple: \"${body}\" }\n";
    private static final String STOP_EDIT = ""
            + "              - filter:\n"
            + "                  simple: \"${exchangeProperty.iqMessage.docId} == '" + STOPPED + "'\"\n"
            + "                  steps:\n"
            + "                    - stop: {}\n";

    private SkipByPageCount() {
    }

    /** @return the guide's example, as written */
    public static String guideExample() throws IOException {
        Matcher m = EXAMPLE.matcher(Files.readString(Path.of("routes", "README.md"), StandardCharsets.UTF_8));
        assertThat(m.find()).as("routes/README.md has the skip-by-page-count example").isTrue();
        return m.group(1);
    }

    /**
     * @param into a fresh folder; the copy is made in {@code <into>/routes}
     * @return a copy of routes/ with the guide's example and the stop edit in process-document
     * @throws IOException when the copy fails
     */
    public static RoutesCopy editedRoutes(Path into) throws IOException {
        String example = guideExample();
        return RoutesCopy.of(into).edit("process-document.camel.yaml", yaml -> yaml
                .replace(AFTER_PARSE, AFTER_PARSE + example)
                .replace(AFTER_FETCH, AFTER_FETCH + STOP_EDIT));
    }
}
