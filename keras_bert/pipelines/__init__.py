"""keras_bert.pipelines: a fine-tuned model answering from raw text, whatever form it ships in."""

from keras_bert.pipelines.question_answering_pipeline import QaInputError
from keras_bert.pipelines.question_answering_pipeline import QuestionAnsweringPipeline
from keras_bert.pipelines.document_question_answering_pipeline import DocumentQuestionAnsweringPipeline
