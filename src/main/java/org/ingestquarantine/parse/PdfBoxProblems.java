package org.ingestquarantine.parse;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Counts the problems PDFBox reports only in its log (WARN and above from {@code org.apache.pdfbox} and
 * {@code org.apache.fontbox}) while the calling thread reads one document: its lenient recovery is silent otherwise
 * (a page-tree loop skipped, an inline image cut short). A logback turbo filter sees every logging call before any
 * level applies, so the count holds whatever the loggers' levels, with logging off in a parser worker too. Only the
 * number is kept and nothing is logged: PDFBox's messages can quote document bytes. Without logback nothing is
 * counted.
 */
final class PdfBoxProblems implements AutoCloseable {

    private static final ThreadLocal<int[]> COUNT = new ThreadLocal<>();
    private static final TurboFilter FILTER = new TurboFilter() {
        @Override
        public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
            int[] count = COUNT.get();
            // format is null for isWarnEnabled() and the like: only a logged message counts
            if (count != null && format != null && level != null && level.isGreaterOrEqual(Level.WARN)
                    && (logger.getName().startsWith("org.apache.pdfbox") || logger.getName().startsWith("org.apache.fontbox"))) {
                count[0]++;
            }
            return FilterReply.NEUTRAL;
        }
    };

    private final int[] count = new int[1];

    private PdfBoxProblems() {
        COUNT.set(count);
    }

    /** @return a count of the problems PDFBox reports on this thread until it is closed */
    static PdfBoxProblems watch() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            // a context reset (the parser worker silences logging so) drops turbo filters: add it again
            synchronized (PdfBoxProblems.class) {
                if (!context.getTurboFilterList().contains(FILTER)) {
                    context.addTurboFilter(FILTER);
                }
            }
        }
        return new PdfBoxProblems();
    }

    /** @return the problems reported so far */
    int count() {
        return count[0];
    }

    @Override
    public void close() {
        COUNT.remove();
    }
}
