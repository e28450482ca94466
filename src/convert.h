/*
 * What git converts a file's bytes by, between its blob and the file it
 * checks out or hashes: line endings (core.autocrlf, core.eol, the text,
 * eol and crlf attributes), filters, ident, working-tree-encoding.  Two
 * files of one blob can differ byte for byte, which no tree id shows: a
 * cached verdict and a parked copy are only as good as the conversion
 * they were made under.
 *
 *	convert_is_attributes(path)	is path an attributes file, at the
 *			top or in a directory below ("a/.gitattributes")
 *	convert_outside(common)		is there an attributes file outside
 *			the tree: common's info/attributes, the global one
 *			($XDG_CONFIG_HOME/git/attributes, else
 *			~/.config/git/attributes), the system's
 *			(/etc/gitattributes and where other prefixes put it)
 *	d = convert_digest(&g, common, &in_tree, &on)
 *			the SHA-256, in hex digits (the caller frees), of
 *			every input outside the tree: git's settings of it as
 *			g's repository sees them (core.autocrlf, core.eol,
 *			core.safecrlf, core.checkRoundtripEncoding,
 *			core.attributesFile, every filter.* key, in the
 *			order git lists them), and the content of each
 *			attributes file git reads beside the tree's
 *			(core.attributesFile's, else the global one; info;
 *			the system's) -- then each string of in_tree, if not
 *			NULL, as the caller picked it ("oid path" of the
 *			tree's own attributes files, say).  on: whether git
 *			can convert anything at all by these (core.autocrlf
 *			true or input, core.attributesFile set, an
 *			attributes file outside, one string of in_tree).
 *			NULL if git could not say (said why)
 *	d = convert_digest_filters(&g, common, &on, &filters)
 *			convert_digest() of what is outside the tree alone
 *			(in_tree NULL), and onto filters (sorted) the names
 *			of the filter drivers git runs a command of as it
 *			checks out: a smudge or process command set, or
 *			required (a checkout without one then fails)
 *
 * What a filter's program does is not in the digest, only its command
 * line: the same command is taken to do the same.
 */
#ifndef CONVERT_H
#define CONVERT_H

struct git;
struct strv;

int	 convert_is_attributes(const char *);
int	 convert_outside(const char *);
char	*convert_digest(const struct git *, const char *, const struct strv *,
	    int *);
char	*convert_digest_filters(const struct git *, const char *, int *,
	    struct strv *);

#endif /* CONVERT_H */
