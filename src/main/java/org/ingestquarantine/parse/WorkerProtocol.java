package org.ingestquarantine.parse;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.ingestquarantine.failure.ErrorFingerprint;
import org.ingestquarantine.failure.RemoteCause;

/**
 * The binary protocol between {@link WorkerPoolParser} and {@link WorkerMain}, over the worker's stdin and
 * stdout. The parent sends {@code PARSE <path>}; the worker answers one frame, which starts with
 * {@link #MAGIC} so that stray bytes on stdout are detected rather than misread:
 * <ul>
 *   <li>{@code READY} once, when the worker has started;</li>
 *   <li>{@code OK}: page count, encrypted flag, PDF version, page texts, pages lost;</li>
 *   <li>{@code FAILED}: our exception's class, reason, message, limit, and its root cause (type, message,
 *       frames), rebuilt in the parent as the same {@link ParseException} subclass whose cause is a
 *       {@link RemoteCause};</li>
 *   <li>{@code UNEXPECTED}: any other exception, rebuilt as an {@link IllegalStateException}.</li>
 * </ul>
 */
final class WorkerProtocol {

    static final int MAGIC = 0x49515031; // "IQP1"
    static final byte REQUEST_PARSE = 1;
    static final byte READY = 10;
    static final byte OK = 11;
    static final byte FAILED = 12;
    static final byte UNEXPECTED = 13;

    /** Frames beyond this many are dropped; fingerprints use only the top three. */
    private static final int MAX_FRAMES = 256;
    /** Longest message carried, in characters; writeUTF cannot carry more than 64 KiB anyway. */
    private static final int MAX_MESSAGE_CHARS = 4000;

    private WorkerProtocol() {
    }

    static void writeRequest(DataOutputStream out, String path) throws IOException {
        out.writeByte(REQUEST_PARSE);
        out.writeUTF(path);
        out.flush();
    }

    static void writeReady(DataOutputStream out) throws IOException {
        out.writeInt(MAGIC);
        out.writeByte(READY);
        out.flush();
    }

    static void writeOk(DataOutputStream out, ParsedDocument document) throws IOException {
        out.writeInt(MAGIC);
        out.writeByte(OK);
        out.writeInt(document.pageCount());
        out.writeBoolean(document.encrypted());
        out.writeUTF(document.pdfVersion());
        out.writeInt(document.pageTexts().size());
        for (String text : document.pageTexts()) {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            out.writeInt(bytes.length);
            out.write(bytes);
        }
        out.writeInt(document.pagesLost().size());
        for (int page : document.pagesLost()) {
            out.writeInt(page);
        }
        out.flush();
    }

    static void writeFailed(DataOutputStream out, ParseException failure) throws IOException {
        out.writeInt(MAGIC);
        out.writeByte(FAILED);
        out.writeUTF(failure.getClass().getSimpleName());
        out.writeUTF(failure.reasonCode());
        out.writeUTF(clip(failure.getMessage()));
        boolean limit = failure instanceof ParseLimitException;
        out.writeUTF(limit ? ((ParseLimitException) failure).limitName() : "");
        out.writeLong(limit ? ((ParseLimitException) failure).limitValue() : 0);
        writeRoot(out, ErrorFingerprint.rootCause(failure));
        out.flush();
    }

    static void writeUnexpected(DataOutputStream out, Throwable failure) throws IOException {
        out.writeInt(MAGIC);
        out.writeByte(UNEXPECTED);
        writeRoot(out, ErrorFingerprint.rootCause(failure));
        out.flush();
    }

    /** @return the frame kind after checking the magic number */
    static byte readKind(DataInputStream in) throws IOException {
        int magic = in.readInt();
        if (magic != MAGIC) {
            throw new IOException("worker wrote something other than a protocol frame: 0x" + Integer.toHexString(magic));
        }
        return in.readByte();
    }

    static String readRequest(DataInputStream in) throws IOException {
        byte kind = in.readByte();
        if (kind != REQUEST_PARSE) {
            throw new IOException("unknown request " + kind);
        }
        return in.readUTF();
    }

    static ParsedDocument readOk(DataInputStream in) throws IOException {
        int pageCount = in.readInt();
        boolean encrypted = in.readBoolean();
        String version = in.readUTF();
        int texts = in.readInt();
        List<String> pageTexts = new ArrayList<>(texts);
        for (int i = 0; i < texts; i++) {
            pageTexts.add(new String(in.readNBytes(in.readInt()), StandardCharsets.UTF_8));
        }
        int lost = in.readInt();
        List<Integer> pagesLost = new ArrayList<>(lost);
        for (int i = 0; i < lost; i++) {
            pagesLost.add(in.readInt());
        }
        return new ParsedDocument(pageCount, pageTexts, pagesLost, encrypted, version);
    }

    /** @return the child's failure rebuilt as the same subclass, caused by a {@link RemoteCause} */
    static ParseException readFailed(DataInputStream in) throws IOException {
        String type = in.readUTF();
        String reason = in.readUTF();
        String message = in.readUTF();
        String limitName = in.readUTF();
        long limitValue = in.readLong();
        RemoteCause cause = readRoot(in);
        return switch (type) {
            case "NotPdfException" -> new NotPdfException(reason, message, cause);
            case "EncryptedPdfException" -> new EncryptedPdfException(message, cause);
            case "NoTextLayerException" -> new NoTextLayerException(message, cause);
            case "PdfSyntaxException" -> new PdfSyntaxException(message, cause);
            case "ParseLimitException" -> new ParseLimitException(reason, limitName, limitValue, cause);
            case "ParserCrashedException" -> new ParserCrashedException(reason, message, cause);
            default -> throw new IOException("worker reported an unknown failure type " + type);
        };
    }

    static RemoteCause readUnexpected(DataInputStream in) throws IOException {
        return readRoot(in);
    }

    private static void writeRoot(DataOutputStream out, Throwable root) throws IOException {
        out.writeUTF(ErrorFingerprint.typeName(root));
        String message = root.getMessage();
        out.writeBoolean(message != null);
        if (message != null) {
            out.writeUTF(clip(message));
        }
        StackTraceElement[] frames = root.getStackTrace();
        int count = Math.min(frames.length, MAX_FRAMES);
        out.writeInt(count);
        for (int i = 0; i < count; i++) {
            StackTraceElement frame = frames[i];
            out.writeUTF(frame.getClassName());
            out.writeUTF(frame.getMethodName());
            out.writeUTF(frame.getFileName() == null ? "" : frame.getFileName());
            out.writeInt(frame.getLineNumber());
        }
    }

    private static RemoteCause readRoot(DataInputStream in) throws IOException {
        String type = in.readUTF();
        String message = in.readBoolean() ? in.readUTF() : null;
        int count = in.readInt();
        if (count < 0 || count > MAX_FRAMES) {
            throw new IOException("worker sent " + count + " frames");
        }
        StackTraceElement[] frames = new StackTraceElement[count];
        for (int i = 0; i < count; i++) {
            String className = in.readUTF();
            String method = in.readUTF();
            String file = in.readUTF();
            frames[i] = new StackTraceElement(className, method, file.isEmpty() ? null : file, in.readInt());
        }
        return new RemoteCause(type, message, frames);
    }

    private static String clip(String message) {
        if (message == null) {
            return "";
        }
        return message.length() <= MAX_MESSAGE_CHARS ? message : message.substring(0, MAX_MESSAGE_CHARS);
    }
}
