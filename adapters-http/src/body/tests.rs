use super::*;
use crate::fields::Field;
use actix_web::test::TestRequest;

const FIELDS: &[Field] = &[
    Field::text("name", "Name"),
    Field::integer("count", "Count"),
];

async fn parse(content_type: &str, body: &'static [u8]) -> Result<Map<String, Value>, ApiError> {
    let (req, payload) = TestRequest::post()
        .insert_header((header::CONTENT_TYPE, content_type))
        .set_payload(body)
        .to_http_parts();
    read_object(&req, payload, FIELDS).await
}

#[actix_web::test]
async fn a_url_encoded_form_is_text_with_declared_numbers_read_as_numbers() {
    let object = parse(
        "application/x-www-form-urlencoded",
        b"name=kitchen+pi%21&count=7&other=3&name=last",
    )
    .await
    .unwrap();
    assert_eq!(
        Value::Object(object),
        json!({"name": "last", "count": 7, "other": "3"})
    );
}

#[actix_web::test]
async fn text_that_is_no_number_stays_text_for_the_field_engine_to_refuse() {
    let object = parse("application/x-www-form-urlencoded", b"count=seven")
        .await
        .unwrap();
    assert_eq!(object["count"], json!("seven"));
}

#[actix_web::test]
async fn a_multipart_form_reads_text_parts_and_marks_files() {
    let body = b"--XyZ\r\n\
Content-Disposition: form-data; name=\"name\"\r\n\r\n\
first\r\n\
--XyZ\r\n\
Content-Disposition: form-data; name=\"name\"\r\n\r\n\
kitchen pi\r\n\
--XyZ\r\n\
Content-Disposition: form-data; name=\"count\"\r\n\r\n\
3\r\n\
--XyZ\r\n\
Content-Disposition: form-data; name=\"upload\"; filename=\"a.txt\"\r\n\
Content-Type: text/plain\r\n\r\n\
hello\r\n\
--XyZ--\r\n";
    let object = parse("multipart/form-data; boundary=XyZ", body)
        .await
        .unwrap();
    assert_eq!(
        Value::Object(object),
        json!({"name": "kitchen pi", "count": 3, "upload": {}})
    );
}

#[actix_web::test]
async fn a_multipart_body_without_a_boundary_is_a_parse_error() {
    match parse("multipart/form-data", b"name=x").await {
        Err(ApiError::FormParse(message)) => {
            assert!(
                message.starts_with("Multipart form parse error - "),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[actix_web::test]
async fn json_must_be_an_object_and_other_media_types_are_refused() {
    assert_eq!(
        Value::Object(
            parse("application/json", br#"{"name": "x"}"#)
                .await
                .unwrap()
        ),
        json!({"name": "x"})
    );
    assert!(matches!(
        parse("application/json", b"[1]").await,
        Err(ApiError::Validation(_))
    ));
    assert!(matches!(
        parse("application/json", b"{").await,
        Err(ApiError::Parse(_))
    ));
    match parse("text/plain; charset=utf-8", b"name=x").await {
        Err(ApiError::UnsupportedMediaType(media_type)) => {
            assert_eq!(media_type, "text/plain; charset=utf-8");
        }
        other => panic!("{other:?}"),
    }
}

#[actix_web::test]
async fn an_empty_body_of_any_media_type_is_an_empty_object() {
    assert!(parse("text/plain", b"").await.unwrap().is_empty());
}

#[actix_web::test]
async fn a_list_of_objects_is_read_from_indexed_names_as_drf_reads_html_forms() {
    const PORT_FIELDS: &[Field] = &[Field::integer("port", "Port"), Field::text("name", "Name")];
    const FIELDS_WITH_LIST: &[Field] = &[Field::list("ports", "Ports", PORT_FIELDS)];
    let (req, payload) = TestRequest::post()
        .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
        .set_payload(
            "ports=ignored&ports[1]port=80&ports[0]port=22&ports[0]name=ssh&ports[x]port=1",
        )
        .to_http_parts();
    let object = read_object(&req, payload, FIELDS_WITH_LIST).await.unwrap();
    assert_eq!(
        Value::Object(object),
        json!({
            "ports": [{"port": 22, "name": "ssh"}, {"port": 80}],
            "ports[x]port": "1"
        })
    );
}

#[actix_web::test]
async fn an_empty_form_value_is_null_for_a_field_that_takes_null() {
    const NULLABLE: &[Field] = &[
        Field::integer("used", "Used").nullable(),
        Field::integer("count", "Count"),
    ];
    let (req, payload) = TestRequest::post()
        .insert_header((header::CONTENT_TYPE, "application/x-www-form-urlencoded"))
        .set_payload("used=&count=")
        .to_http_parts();
    let object = read_object(&req, payload, NULLABLE).await.unwrap();
    assert_eq!(Value::Object(object), json!({"used": null, "count": ""}));
}
