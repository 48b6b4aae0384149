package org.ingestquarantine.ingest;

import com.sun.jna.LastErrorException;
import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.ingestquarantine.failure.PermanentInputException;

/**
 * A local file opened once by an absolute path with no symbolic link followed at ANY component: the path is
 * walked from {@code /} one directory handle at a time ({@code openat} with {@code O_NOFOLLOW}), and the last
 * component is opened {@code O_NONBLOCK}, so a FIFO (or a device) swapped in never blocks the open. Its
 * attributes are those of the opened handle, and its bytes are read from that handle only: what was opened is
 * what is described and read, whatever the path names meanwhile. Not thread-safe; close it.
 *
 * <p>Linux (x86-64, aarch64, arm, ppc64le, riscv64, s390x) and macOS; elsewhere {@link #open} refuses.
 */
final class NoFollowFile implements Closeable {

    /** The libc calls used; {@code open} and {@code openat} are variadic, so their mode is varargs. */
    private interface LibC extends Library {
        int open(byte[] path, int flags, Object... mode) throws LastErrorException;

        int openat(int dirfd, byte[] path, int flags, Object... mode) throws LastErrorException;

        NativeLong read(int fd, Pointer buf, NativeLong count) throws LastErrorException;

        int close(int fd) throws LastErrorException;
    }

    private static final int BUFFER_BYTES = 64 * 1024;
    /** The attributes read from an open handle: type and permissions, names, size, time. */
    private static final String ATTRIBUTES = "unix:mode,nlink,size,lastModifiedTime";

    private final int fd;
    private final String shown;
    private final Map<String, Object> attributes;
    private Memory buffer;
    private boolean closed;

    private NoFollowFile(int fd, String shown, Map<String, Object> attributes) {
        this.fd = fd;
        this.shown = shown;
        this.attributes = attributes;
    }

    /**
     * @param path an absolute path with no symbolic link in it (a real path: what the source's guard checked)
     * @return the file, open for reading; a regular file or not ({@link #isRegularFile})
     * @throws PermanentInputException reason {@code symlink_refused} when a component of the path is a
     *     symbolic link now (one swapped in after the check)
     * @throws NoSuchFileException when a component is missing
     * @throws AccessDeniedException when a component may not be read
     * @throws IOException when the open fails otherwise
     */
    static NoFollowFile open(Path path) throws IOException {
        Flags f = Flags.FOR_THIS_PLATFORM;
        if (f == null) {
            throw new IOException("reading local files without following links is not supported on " + Platform.RESOURCE_PREFIX);
        }
        if (!path.isAbsolute()) {
            throw new IllegalArgumentException("an absolute path is opened, not " + path);
        }
        List<byte[]> components = components(path);
        String shown = path.toString();
        int dir = call(shown, () -> Libc.C.open(new byte[] {'/', 0}, f.readOnly | f.directory | f.cloexec));
        try {
            for (int i = 0; i < components.size(); i++) {
                boolean last = i == components.size() - 1;
                byte[] name = components.get(i);
                int flags = f.readOnly | f.noFollow | f.cloexec | (last ? f.nonBlock : f.directory);
                int parent = dir;
                int next;
                try {
                    next = call(shown, () -> Libc.C.openat(parent, name, flags));
                } catch (LinkOrNotDirectory e) {
                    throw new PermanentInputException("symlink_refused", "a component of the source path is a symbolic"
                            + " link or not a folder now (it was checked as a real path): no link is followed");
                }
                closeQuietly(dir);
                dir = next;
            }
            int fd = dir;
            dir = -1;
            try {
                return new NoFollowFile(fd, shown, Files.readAttributes(handlePath(fd), ATTRIBUTES));
            } catch (IOException | RuntimeException e) {
                closeQuietly(fd);
                throw e;
            }
        } finally {
            if (dir >= 0) {
                closeQuietly(dir);
            }
        }
    }

    /** @return whether the opened file is a regular file (not a FIFO, device, socket or folder) */
    boolean isRegularFile() {
        return ((Integer) attributes.get("mode") & 0170000) == 0100000;
    }

    /** @return the opened file's link count: above 1, it has other names too (hard links) */
    int linkCount() {
        return (Integer) attributes.get("nlink");
    }

    /** @return the opened file's size at open, bytes */
    long size() {
        return (Long) attributes.get("size");
    }

    /** @return the opened file's modification time at open */
    FileTime lastModifiedTime() {
        return (FileTime) attributes.get("lastModifiedTime");
    }

    /**
     * @return the opened file's attributes now (size and time after a read), from the handle
     * @throws IOException when they cannot be read
     */
    NoFollowFile refreshed() throws IOException {
        return new NoFollowFile(fd, shown, Files.readAttributes(handlePath(fd), ATTRIBUTES));
    }

    /**
     * @param b where to put the bytes
     * @param off offset in {@code b}
     * @param len most bytes to read
     * @return bytes read, -1 at the end
     * @throws IOException when the read fails
     */
    int read(byte[] b, int off, int len) throws IOException {
        if (closed) {
            throw new IOException("the file is closed");
        }
        if (buffer == null) {
            buffer = new Memory(BUFFER_BYTES);
        }
        int want = Math.min(len, BUFFER_BYTES);
        long n;
        try {
            n = Libc.C.read(fd, buffer, new NativeLong(want)).longValue();
        } catch (LastErrorException e) {
            throw new IOException("reading " + shown + " failed (errno " + e.getErrorCode() + ")");
        }
        if (n <= 0) {
            return -1;
        }
        buffer.read(0, b, off, (int) n);
        return (int) n;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            closeQuietly(fd);
            if (buffer != null) {
                buffer.close();
            }
        }
    }

    /** @return the path naming the open handle itself (a magic link to the opened file, not a name to resolve) */
    private static Path handlePath(int fd) {
        return Path.of(Platform.isLinux() ? "/proc/self/fd/" + fd : "/dev/fd/" + fd);
    }

    /** @return the path's components as the bytes the file system holds (lossless, whatever their encoding) */
    private static List<byte[]> components(Path path) {
        List<byte[]> components = new ArrayList<>();
        ByteArrayOutputStream current = new ByteArrayOutputStream();
        for (byte b : RawPathBytes.of(path)) {
            if (b == '/') {
                addComponent(components, current);
            } else {
                current.write(b);
            }
        }
        addComponent(components, current);
        return components;
    }

    private static void addComponent(List<byte[]> components, ByteArrayOutputStream current) {
        if (current.size() > 0) {
            current.write(0);
            components.add(current.toByteArray());
            current.reset();
        }
    }

    private interface Call {
        int run();
    }

    /** An open refused because a component is a symbolic link, or not a folder where one was expected. */
    private static final class LinkOrNotDirectory extends IOException {
        LinkOrNotDirectory() {
            super("a symbolic link, or not a folder");
        }
    }

    private static int call(String shown, Call call) throws IOException {
        try {
            return call.run();
        } catch (LastErrorException e) {
            int errno = e.getErrorCode();
            Flags f = Flags.FOR_THIS_PLATFORM;
            if (errno == f.eloop || errno == f.enotdir || errno == f.emlink) {
                throw new LinkOrNotDirectory();
            }
            if (errno == f.enoent) {
                throw new NoSuchFileException(shown);
            }
            if (errno == f.eacces || errno == f.eperm) {
                throw new AccessDeniedException(shown);
            }
            throw new IOException("opening " + shown + " failed (errno " + errno + ")");
        }
    }

    private static void closeQuietly(int fd) {
        try {
            Libc.C.close(fd);
        } catch (LastErrorException ignored) {
            // nothing to do: the descriptor is released either way
        }
    }

    /** Loaded on first use, so that a process that never reads a local file never loads libc through JNA. */
    private static final class Libc {
        static final LibC C = Native.load(Platform.C_LIBRARY_NAME, LibC.class);
    }

    /** The open(2) flags and errno values of the platforms supported, which differ between them. */
    private record Flags(int readOnly, int nonBlock, int directory, int noFollow, int cloexec,
                         int eloop, int enotdir, int emlink, int enoent, int eacces, int eperm) {

        static final Flags FOR_THIS_PLATFORM = detect();

        private static Flags detect() {
            if (Platform.isMac()) {
                return new Flags(0, 0x4, 0x100000, 0x100, 0x1000000, 62, 20, 31, 2, 13, 1);
            }
            if (!Platform.isLinux()) {
                return null;
            }
            return switch (Platform.ARCH) {
                case "x86-64", "x86", "riscv64", "s390x", "loongarch64" ->
                        new Flags(0, 04000, 0200000, 0400000, 02000000, 40, 20, 31, 2, 13, 1);
                case "aarch64", "arm", "armel", "ppc64le", "ppc64", "ppc" ->
                        new Flags(0, 04000, 040000, 0100000, 02000000, 40, 20, 31, 2, 13, 1);
                default -> null;
            };
        }
    }
}
