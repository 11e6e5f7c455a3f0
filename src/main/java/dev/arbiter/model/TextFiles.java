package dev.arbiter.model;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reading the text files a user hands Arbiter (manifests, rules) with a size limit: a file larger than
 * {@link #MAX_BYTES}, or a device that never ends ({@code /dev/zero}), is refused with one line instead of filling the
 * heap. Named pipes and process substitutions ({@code <(kubectl get ...)}) are read as files are.
 */
public final class TextFiles {
    /** 256 MiB: far beyond any manifest or rules file, far below the heap of a 2-core machine. */
    public static final long MAX_BYTES = 256L << 20;

    /** Too large to read, with the limit in its message. */
    public static final class TooLarge extends IOException {
        TooLarge(Path p) {
            super("larger than " + (MAX_BYTES >> 20) + " MiB, which no manifest or rules file is (is it the right file?)");
        }
    }

    private TextFiles() {}

    /**
     * The file's text as strict UTF-8; throws {@link TooLarge} past {@link #MAX_BYTES}, a
     * {@link CharacterCodingException} for bytes that are not UTF-8, and other {@link IOException}s as reading does.
     */
    public static String readUtf8(Path p) throws IOException {
        byte[] bytes;
        try (InputStream in = Files.newInputStream(p)) {
            bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, MAX_BYTES + 1));
        }
        if (bytes.length > MAX_BYTES) throw new TooLarge(p);
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    }
}
