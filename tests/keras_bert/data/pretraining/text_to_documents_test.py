"""Raw text to sentence-per-line documents: sentence splitting, chapters, Gutenberg boilerplate."""

from keras_bert.data.pretraining.text_to_documents import split_sentences
from keras_bert.data.pretraining.text_to_documents import text_to_documents
from keras_bert.data.pretraining.text_to_documents import write_documents


def test_sentence_splitting_respects_abbreviations_and_quotes():
    assert split_sentences('Mr. Darcy bowed. "Indeed!" said she. J. R. Smith came at 5 p.m. today? Yes.') == [
        "Mr. Darcy bowed.", '"Indeed!" said she.', "J. R. Smith came at 5 p.m. today?", "Yes.",
    ]
    assert split_sentences("no end here") == ["no end here"]


def test_gutenberg_boilerplate_and_chapters():
    text = (
        "The Project Gutenberg EBook of X\n\nLicense blah.\n"
        "*** START OF THIS PROJECT GUTENBERG EBOOK X ***\n\nCHAPTER I\n\n"
        "It was a _dark_ night.  The rain\nfell.\n\nShe left.\n\nCHAPTER II.\n\nMorning came.\n"
        "*** END OF THIS PROJECT GUTENBERG EBOOK X ***\nMore license."
    )
    assert text_to_documents(text) == [
        ["It was a dark night.", "The rain fell.", "She left."],
        ["Morning came."],
    ]


def test_documents_are_capped_and_written_in_google_format(tmp_path):
    documents = text_to_documents("A one. B two. C three. D four. E five.", max_sentences_per_document=2)
    assert documents == [["A one.", "B two."], ["C three.", "D four."], ["E five."]]
    path = tmp_path / "corpus.txt"
    write_documents(documents, path)
    assert path.read_text() == "A one.\nB two.\n\nC three.\nD four.\n\nE five.\n\n"
