package io.github.redislock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The manual as the documentation tests read it: README.md and every page of {@code docs/}, their
 * fenced code blocks, and the prose around them.
 *
 * <p>A block may carry a marker: an HTML comment on the last non-blank line before its opening fence,
 * e.g. {@code <!-- example: needs GraalVM -->}. GitHub does not show it; the tests read it.
 */
final class Manual {

    /** The repository root, from a module's directory (where Maven runs the tests). */
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final Pattern OPENING_FENCE = Pattern.compile("^(\\s*)```+\\s*([\\w-]*)\\s*$");
    private static final Pattern CLOSING_FENCE = Pattern.compile("^\\s*```+\\s*$");
    private static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*(.*?)\\s*-->\\s*$");

    private Manual() {
    }

    /** One Markdown page. */
    record Page(Path path, List<String> lines) {

        /** The page's path from the repository root, as failures name it. */
        String name() {
            return ROOT.relativize(path).toString();
        }

        /** The text without its fenced blocks, whose brackets, hashes and backticks are code, not Markdown. */
        String prose() {
            StringBuilder text = new StringBuilder();
            boolean code = false;
            for (String line : lines) {
                if (!code && OPENING_FENCE.matcher(line).matches()) {
                    code = true;
                } else if (code && CLOSING_FENCE.matcher(line).matches()) {
                    code = false;
                } else if (!code) {
                    text.append(line);
                }
                text.append('\n'); // a line for every line, so offsets keep their line numbers
            }
            return text.toString();
        }

        /** The 1-based line of {@code offset} in {@link #prose()}. */
        int lineOf(String prose, int offset) {
            int line = 1;
            for (int i = 0; i < offset; i++) {
                if (prose.charAt(i) == '\n') {
                    line++;
                }
            }
            return line;
        }

        /** The fenced code blocks, indented ones (in a list item) included, their indentation removed. */
        List<Block> blocks() {
            List<Block> blocks = new ArrayList<>();
            for (int i = 0; i < lines.size(); i++) {
                Matcher opening = OPENING_FENCE.matcher(lines.get(i));
                if (!opening.matches()) {
                    continue;
                }
                int indent = opening.group(1).length();
                int start = i;
                List<String> code = new ArrayList<>();
                for (i++; i < lines.size() && !CLOSING_FENCE.matcher(lines.get(i)).matches(); i++) {
                    String line = lines.get(i);
                    code.add(line.length() >= indent && line.substring(0, indent).isBlank() ? line.substring(indent) : line.strip());
                }
                blocks.add(new Block(this, start + 1, opening.group(2), marker(start), code));
            }
            return blocks;
        }

        private String marker(int fence) {
            for (int i = fence - 1; i >= 0; i--) {
                if (!lines.get(i).isBlank()) {
                    Matcher marker = MARKER.matcher(lines.get(i));
                    return marker.matches() ? marker.group(1) : null;
                }
            }
            return null;
        }
    }

    /**
     * One fenced block.
     *
     * @param line     the 1-based line of its opening fence
     * @param language what follows the opening fence ({@code java}, {@code sh}), empty for none
     * @param marker   the text of the HTML comment just before it, or null
     */
    record Block(Page page, int line, String language, String marker, List<String> lines) {

        /** Where a failure points: the page and the line of the opening fence. */
        String where() {
            return page.name() + ":" + line;
        }
    }

    /** README.md, then the pages of docs/ by name. */
    static List<Page> pages() {
        List<Path> paths = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(paths::add);
            List<Page> pages = new ArrayList<>();
            for (Path path : paths) {
                pages.add(new Page(path, Files.readAllLines(path, StandardCharsets.UTF_8)));
            }
            return pages;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every fenced block of every page in {@code language}. */
    static List<Block> blocks(String language) {
        return pages().stream().flatMap(page -> page.blocks().stream()).filter(block -> block.language().equals(language)).toList();
    }
}
