package org.ingestquarantine.parse;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pdfbox.cos.COSArray;
import org.apache.pdfbox.cos.COSBase;
import org.apache.pdfbox.cos.COSDictionary;
import org.apache.pdfbox.cos.COSName;
import org.apache.pdfbox.cos.COSObject;
import org.apache.pdfbox.cos.COSStream;
import org.apache.pdfbox.filter.Filter;
import org.apache.pdfbox.filter.FilterFactory;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDResources;

/**
 * Checks, before text extraction, what a page's content may cost: every stream reachable from the page's
 * {@code /Contents} and {@code /Resources} (content, forms, fonts, CMaps) must decode to at most
 * {@code maxStreamBytes}, and every image must declare at most {@code maxImagePixels}.
 *
 * <p>Images are never decoded (text extraction does not decode them either): only their declared
 * {@code /Width} and {@code /Height} are read. Other streams are decoded into a counting sink that stops
 * at the limit, so a decompression bomb costs at most the limit in work and nothing in heap. Streams
 * shared by several pages are checked once. A stream that fails to decode is left for PDFBox to judge.
 * Single use: one instance per document.
 */
final class ContentLimitScanner {

    private static final COSName DECODED_LENGTH = COSName.getPDFName("DL");
    /** Image codecs: data behind them is pixels, which text extraction never decodes. */
    private static final Set<COSName> IMAGE_CODECS = Set.of(COSName.DCT_DECODE, COSName.JPX_DECODE,
            COSName.JBIG2_DECODE, COSName.CCITTFAX_DECODE);

    private final long maxStreamBytes;
    private final long maxImagePixels;
    private final Set<COSBase> visited = Collections.newSetFromMap(new IdentityHashMap<>());

    ContentLimitScanner(long maxStreamBytes, long maxImagePixels) {
        this.maxStreamBytes = maxStreamBytes;
        this.maxImagePixels = maxImagePixels;
    }

    /** @throws ParseLimitException reason {@code stream_bytes_limit} or {@code image_pixel_limit} */
    void scan(List<PDPage> pages) throws ParseLimitException {
        for (PDPage page : pages) {
            Deque<COSBase> pending = new ArrayDeque<>();
            PDResources resources = page.getResources();
            if (resources != null) {
                push(pending, resources.getCOSObject());
            }
            push(pending, page.getCOSObject().getDictionaryObject(COSName.CONTENTS));
            walk(pending);
        }
    }

    private void walk(Deque<COSBase> pending) throws ParseLimitException {
        while (!pending.isEmpty()) {
            COSBase item = pending.pop();
            if (item instanceof COSObject reference) {
                item = reference.getObject();
            }
            if (item == null || !visited.add(item)) {
                continue;
            }
            if (item instanceof COSStream stream) {
                check(stream);
            }
            if (item instanceof COSDictionary dictionary) {
                for (Map.Entry<COSName, COSBase> entry : dictionary.entrySet()) {
                    if (!COSName.PARENT.equals(entry.getKey())) {
                        push(pending, entry.getValue());
                    }
                }
            } else if (item instanceof COSArray array) {
                for (int i = 0; i < array.size(); i++) {
                    push(pending, array.get(i));
                }
            }
        }
    }

    private static void push(Deque<COSBase> pending, COSBase item) {
        if (item != null) {
            pending.push(item);
        }
    }

    private void check(COSStream stream) throws ParseLimitException {
        if (COSName.IMAGE.equals(stream.getCOSName(COSName.SUBTYPE))) {
            long width = Math.max(0, stream.getLong(COSName.WIDTH, 0));
            long height = Math.max(0, stream.getLong(COSName.HEIGHT, 0));
            if (width > 0 && height > maxImagePixels / width) {
                throw ParseLimitException.imagePixels(maxImagePixels);
            }
            return;
        }
        if (stream.getLong(DECODED_LENGTH, -1) > maxStreamBytes) {
            throw ParseLimitException.streamBytes(maxStreamBytes);
        }
        List<COSName> filters = filterNames(stream);
        if (filters.stream().anyMatch(IMAGE_CODECS::contains)) {
            return;
        }
        long decoded = filters.isEmpty() ? stream.getLength() : decodedLength(stream, filters);
        if (decoded > maxStreamBytes) {
            throw ParseLimitException.streamBytes(maxStreamBytes);
        }
    }

    private static List<COSName> filterNames(COSStream stream) {
        COSBase filters = stream.getFilters();
        List<COSName> names = new ArrayList<>();
        if (filters instanceof COSName name) {
            names.add(name);
        } else if (filters instanceof COSArray array) {
            for (int i = 0; i < array.size(); i++) {
                if (array.getObject(i) instanceof COSName name) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    /**
     * Decodes through the filter chain, counting output bytes and stopping once past the limit.
     * Intermediate results of a chain go to a temp file, never the heap.
     *
     * @return the decoded length, or a number above the limit when decoding stopped there; what was
     *     decoded before a decoding error when the stream is corrupt
     */
    private long decodedLength(COSStream stream, List<COSName> filters) {
        List<Path> temps = new ArrayList<>();
        try {
            InputStream input = stream.createRawInputStream();
            for (int i = 0; i < filters.size(); i++) {
                Filter filter = FilterFactory.INSTANCE.getFilter(filters.get(i));
                boolean last = i == filters.size() - 1;
                Path temp = last ? null : Files.createTempFile("iq-parse-", ".bin");
                if (temp != null) {
                    temps.add(temp);
                }
                CountingSink sink = new CountingSink(maxStreamBytes,
                        temp == null ? OutputStream.nullOutputStream() : Files.newOutputStream(temp));
                try (InputStream in = input; sink) {
                    filter.decode(in, sink, stream, i);
                } catch (IOException | RuntimeException e) {
                    if (!sink.exceeded()) {
                        return sink.count();
                    }
                }
                if (sink.exceeded() || last) {
                    return sink.count();
                }
                input = Files.newInputStream(temp, StandardOpenOption.READ);
            }
            return 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        } finally {
            for (Path temp : temps) {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException ignored) {
                    // a leftover temp file costs disk only; the OS temp cleaner removes it
                }
            }
        }
    }

    /** Counts bytes written and refuses to take more than one byte past the limit. */
    private static final class CountingSink extends OutputStream {
        private final long limit;
        private final OutputStream target;
        private long count;

        CountingSink(long limit, OutputStream target) {
            this.limit = limit;
            this.target = target;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            count += len;
            if (exceeded()) {
                throw new IOException("decoded stream exceeds the limit");
            }
            target.write(b, off, len);
        }

        boolean exceeded() {
            return count > limit;
        }

        long count() {
            return count;
        }

        @Override
        public void close() throws IOException {
            target.close();
        }
    }
}
