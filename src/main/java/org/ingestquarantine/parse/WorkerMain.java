package org.ingestquarantine.parse;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;

/**
 * Entry point of a parser worker JVM, started by {@link WorkerPoolParser}; not meant to be run by hand.
 * Parses one document at a time with {@link InProcessPdfParser} and answers over stdout with
 * {@link WorkerProtocol}; exits when stdin closes.
 *
 * <p>Arguments: {@code maxPages maxStreamBytes maxImagePixels scratchMemoryBytes}. Anything else that
 * writes to {@code System.out} (libraries, logging) is sent to stderr instead, so it cannot corrupt the
 * protocol. Logging is switched off: the parent discards the worker's stderr, and PDFBox warnings may
 * quote document bytes. Formatting PDFBox's error stack traces for nobody cost milliseconds on every
 * malformed document.
 */
public final class WorkerMain {

    private WorkerMain() {
    }

    public static void main(String[] args) throws IOException {
        DataOutputStream protocolOut = new DataOutputStream(
                new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16));
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true));
        silenceLogging();
        ParseLimits limits = ParseLimits.defaults()
                .withMaxPages(Integer.parseInt(args[0]))
                .withMaxStreamBytes(Long.parseLong(args[1]))
                .withMaxImagePixels(Long.parseLong(args[2]))
                .withScratchMemoryBytes(Long.parseLong(args[3]));
        InProcessPdfParser parser = new InProcessPdfParser(limits);
        WorkerWarmUp.run(parser);
        DataInputStream requests = new DataInputStream(new BufferedInputStream(new FileInputStream(FileDescriptor.in)));
        WorkerProtocol.writeReady(protocolOut);
        while (true) {
            String path;
            try {
                path = WorkerProtocol.readRequest(requests);
            } catch (EOFException parentGone) {
                return;
            }
            answer(parser, Path.of(path), protocolOut);
        }
    }

    private static void answer(InProcessPdfParser parser, Path pdf, DataOutputStream out) throws IOException {
        ParsedDocument document;
        try {
            document = parser.parse(pdf);
        } catch (ParseException e) {
            WorkerProtocol.writeFailed(out, e);
            return;
        } catch (RuntimeException | StackOverflowError e) {
            WorkerProtocol.writeUnexpected(out, e);
            return;
        }
        WorkerProtocol.writeOk(out, document);
    }

    /** Drops every logger's configured level and appender, then turns the root logger off. */
    private static void silenceLogging() {
        if (LoggerFactory.getILoggerFactory() instanceof ch.qos.logback.classic.LoggerContext context) {
            context.reset();
            context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(ch.qos.logback.classic.Level.OFF);
        }
    }
}
