package org.ingestquarantine.ingest;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;

/**
 * Lists a folder source: walks its {@code sources.<name>.file-roots} ({@link SourceAccess#fileRoots}) and counts
 * the regular files, what {@link FolderConnector} reads as documents. No symbolic link is followed or counted (a
 * link is not a document of its own: the connector reads its target, which is counted where it lies under a
 * root), a root nested in another is walked once, and a walk that finds more than
 * {@value #MAX_DOCUMENTS_PROPERTY} files fails instead of counting on. Thread-safe.
 */
public final class FolderLister implements SourceLister {

    /** Property: most files a walk counts before it fails. */
    public static final String MAX_DOCUMENTS_PROPERTY = "sources.count-max-documents";

    private final SourceAccess access;
    private final long maxDocuments;

    /**
     * @param access the configured sources
     * @param maxDocuments {@value #MAX_DOCUMENTS_PROPERTY}, at least 1
     */
    public FolderLister(SourceAccess access, long maxDocuments) {
        if (maxDocuments < 1) {
            throw new IllegalArgumentException(MAX_DOCUMENTS_PROPERTY + " must be at least 1, was " + maxDocuments);
        }
        this.access = Objects.requireNonNull(access, "access");
        this.maxDocuments = maxDocuments;
    }

    @Override
    public String version() {
        return FolderConnector.VERSION;
    }

    @Override
    public boolean canList(String source) {
        return !access.fileRoots(source).isEmpty();
    }

    @Override
    public long count(String source) throws IOException {
        long[] files = {0};
        for (Path root : outermost(access.fileRoots(source))) {
            Files.walkFileTree(root, EnumSet.noneOf(java.nio.file.FileVisitOption.class), Integer.MAX_VALUE,
                    new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                            if (attrs.isRegularFile() && ++files[0] > maxDocuments) {
                                throw new IllegalStateException("source '" + source + "' holds more than " + maxDocuments
                                        + " files under its file-roots; raise " + MAX_DOCUMENTS_PROPERTY
                                        + " to list it, or state its total (sources set-total)");
                            }
                            return FileVisitResult.CONTINUE;
                        }
                    });
        }
        return files[0];
    }

    /** @return the roots not lying under another (real paths: equal ones once) */
    private static List<Path> outermost(List<Path> roots) {
        List<Path> kept = new ArrayList<>();
        for (Path r : roots) {
            if (roots.stream().noneMatch(o -> !o.equals(r) && r.startsWith(o)) && !kept.contains(r)) {
                kept.add(r);
            }
        }
        return kept;
    }
}
